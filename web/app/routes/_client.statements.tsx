import type { LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData, useSearchParams } from '@remix-run/react';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { DataTable } from '~/components/ui/data-table.tsx';
import { DateRangeDialog } from '~/components/ui/date-range-dialog.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { activeWallet } from '~/modules/accounts/accounts.server.ts';
import { listStatement, type StatementRow } from '~/modules/statements/statements.server.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/statements');

// /statements — closed trades of the active wallet, date filter, 15 a page, CSV export.
export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql);
  const { page, dateStart, dateEnd } = listQuery(request, [], '', { dates: true });
  const range = { dateStart, dateEnd };
  const balance = await activeWallet(sql, s.user.id);
  const list = balance ? await listStatement(sql, balance.id, range, page) : { rows: [], total: 0 };
  return { ...list, range, wallet: balance ? { mode: balance.mode, currency: balance.currency } : null };
}

export default function Page() {
  const { t } = useTranslation();
  const f = useFormat();
  const { rows, total, range, wallet } = useLoaderData<typeof loader>();
  const [, setParams] = useSearchParams();
  const [filterOpen, setFilterOpen] = useState(false);
  const columns = useMemo<ColumnDef<StatementRow>[]>(() => [
    { id: 'id', header: t('Ticket'), enableSorting: false, cell: ({ row }) => (row.original.positionId
      ? <span className="cell-wrap"><span>{row.original.id}</span> <span className="muted part-of">{t('Part of #{{id}}', { id: row.original.positionId })}</span></span>
      : row.original.id) },
    { id: 'open', header: t('Open Time'), enableSorting: false, cell: ({ row }) => f.clientDateTime(row.original.createdAt) },
    { id: 'close', header: t('Close Time'), enableSorting: false, cell: ({ row }) => f.clientDateTime(row.original.closeTime) },
    { id: 'type', header: t('Type'), enableSorting: false, cell: ({ row }) => (row.original.type === 'buy' ? t('Buy') : t('Sell')) },
    { id: 'instrument', header: t('Instrument'), enableSorting: false, cell: ({ row }) => row.original.instrument },
    { id: 'units', header: t('Units'), enableSorting: false, cell: ({ row }) => f.amount(row.original.amount) },
    { id: 'openRate', header: t('Open Rate'), enableSorting: false, cell: ({ row }) => f.rate(row.original.openRate, row.original.digits) },
    { id: 'closeRate', header: t('Close Rate'), enableSorting: false, cell: ({ row }) => f.rate(row.original.closeRate, row.original.digits) },
    {
      id: 'pnl', header: t('Profit/Loss'), enableSorting: false,
      cell: ({ row }) => { const v = Number(row.original.proLoss); return <span className={v > 0 ? 'up' : 'down'}>{f.pnl(row.original.proLoss)}</span>; },
    },
    { id: 'status', header: t('Status'), enableSorting: false, cell: () => <span className="chip chip-closed">{t('CLOSED')}</span> },
  ], [t, f]);
  const exportQuery = new URLSearchParams({ dateStart: range.dateStart, dateEnd: range.dateEnd });
  return (
    <section className="card">
      <h1 className="page-title">{t('Statements')}</h1>
      {wallet ? <p className="muted">{t('Closed trades of your {{mode}} {{currency}} wallet', { mode: wallet.mode === 'real' ? t('Real') : t('Demo'), currency: wallet.currency })}</p> : null}
      <DataTable columns={columns} data={rows} total={total} searchable={false} getRowId={(r) => String(r.id)} caption={t('Statements')}
        toolbar={<div className="statement-toolbar">
          {range.dateStart || range.dateEnd ? <span className="muted">{range.dateStart || '…'} – {range.dateEnd || '…'}</span> : null}
          <button type="button" className="btn btn-sm btn-ghost" onClick={() => setFilterOpen(true)}>{t('Filter')}</button>
          <a className="btn btn-sm btn-primary" href={`/statements/export?${exportQuery}`} download>{t('Export')}</a>
        </div>} />
      <DateRangeDialog open={filterOpen} value={{ start: range.dateStart, end: range.dateEnd }} onClose={() => setFilterOpen(false)}
        onSubmit={({ start, end }) => {
          setFilterOpen(false);
          setParams((prev) => {
            const next = new URLSearchParams(prev);
            next.delete('page');
            if (start) next.set('dateStart', start); else next.delete('dateStart');
            if (end) next.set('dateEnd', end); else next.delete('dateEnd');
            return next;
          });
        }} />
    </section>
  );
}

export const meta = pageMeta('Statements');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
