// The staff list of pending orders (/admin/trades/pending, docs/specs.md#admin-trades): filtered
// by status (pending by default; filled, cancelled, expired, or all), user, instrument and side,
// all in the URL; a pending one can be cancelled after confirmation (the engine audits it and
// the customer is notified).
import { useMemo, useState } from 'react';
import { Form, Link, useLoaderData, useSearchParams } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '@tanstack/react-table';
import { pendingEndLabel } from '@broker/engine/contract/pending';
import { DataTable } from '~/components/ui/data-table.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { PENDING_EXPIRY_LABELS, pendingTypeLabel } from '~/shared/pending-labels.ts';
import type { PendingLoader } from './route.server.ts';
import type { StaffPendingRow } from './pending.server.ts';
import { EXACT_COUNT_LIMIT } from '~/shared/count-limits.ts';

/** How a status reads (i18n keys). */
export const PENDING_STATUS_LABELS: Record<StaffPendingRow['status'], string> = { pending: 'Pending', filled: 'Filled', cancelled: 'Cancelled', expired: 'Expired' };

export function PendingOrdersPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const data = useLoaderData<PendingLoader>();
  const [cancelling, setCancelling] = useState<StaffPendingRow | null>(null);
  const title = t('Pending Orders');
  const columns = useMemo<ColumnDef<StaffPendingRow>[]>(() => [
    { id: 'id', accessorKey: 'id', header: t('ID'), cell: ({ row: { original: o } }) => (
      <div className="trade-id"><span>{o.id}</span><span className="muted trade-time">{f.dateTime(o.createdAt)}</span></div>
    ) },
    { id: 'user', header: t('User'), enableSorting: false, cell: ({ row: { original: o } }) => (
      <div className="trade-user">
        <Link to={`/admin/customers/edit/${o.userId}`} className="trade-email" title={o.email}>{o.email}</Link>
        <span className={`chip chip-${o.mode}`}>{o.mode === 'real' ? t('Real') : t('Demo')} · {o.currency}</span>
      </div>
    ) },
    { id: 'type', header: t('Type'), enableSorting: false, cell: ({ row: { original: o } }) => <span className={o.type === 'buy' ? 'up' : 'down'}>{t(pendingTypeLabel(o.type, o.orderType))}</span> },
    { id: 'instrument', header: t('Instrument'), enableSorting: false, cell: ({ row: { original: o } }) => o.instrument },
    { id: 'units', header: t('Units'), enableSorting: false, cell: ({ row: { original: o } }) => f.amount(o.amount) },
    { id: 'price', header: t('Price'), enableSorting: false, cell: ({ row: { original: o } }) => f.rate(o.price, o.digits) },
    { id: 'profit', header: t('Take Profit'), enableSorting: false, cell: ({ row: { original: o } }) => f.rate(o.profit, o.digits) },
    { id: 'loss', header: t('Stop Loss'), enableSorting: false, cell: ({ row: { original: o } }) => f.rate(o.loss, o.digits) },
    { id: 'expiry', header: t('Expiry'), enableSorting: false, cell: ({ row: { original: o } }) => (o.expiresAt ? f.dateTime(o.expiresAt) : t(PENDING_EXPIRY_LABELS[o.expiry])) },
    { id: 'status', header: t('Status'), enableSorting: false, cell: ({ row: { original: o } }) => (
      <span className="status-cell" data-testid={`pending-status-${o.id}`}>
        <span className={`chip chip-${o.status === 'pending' ? 'open' : 'closed'}`}>{t(PENDING_STATUS_LABELS[o.status])}</span>
        {o.status === 'filled' && o.fillRate !== null
          ? <span className="muted">{t('at {{rate}} (slippage {{slippage}}), position #{{order}}', { rate: f.rate(o.fillRate, o.digits), slippage: f.rate(o.slippage, o.digits), order: o.orderId ?? '' })}</span>
          : o.cancelReason ? <span className="muted">{t(pendingEndLabel(o.cancelReason))}</span> : null}
      </span>
    ) },
    { id: 'actions', header: t('Actions'), enableSorting: false, cell: ({ row: { original: o } }) => (o.status === 'pending' ? (
      <button type="button" className="btn btn-sm btn-danger" onClick={() => setCancelling(o)}>{t('Cancel')}<span className="sr-only"> #{o.id}</span></button>
    ) : null) },
  ], [t, f]);
  return (
    <section className="page trades-page">
      <h1 className="page-title">{title}</h1>
      <PendingFiltersForm />
      {data.filterError ? <p className="field-error" role="alert">{t(data.filterError.message)}</p> : null}
      <DataTable columns={columns} data={data.rows} total={data.total} searchable={false} getRowId={(r) => String(r.id)} caption={title}
        toolbar={data.estimated ? <span className="muted trade-estimate">{t('More than {{limit}} trades match: the total is an estimate.', { limit: f.amount(EXACT_COUNT_LIMIT) })}</span> : undefined} />
      <ConfirmDialog open={!!cancelling} onClose={() => setCancelling(null)} intent="cancel-pending" fields={cancelling ? { id: cancelling.id } : undefined}
        title={t('Cancel pending order #{{id}}', { id: cancelling?.id ?? '' })} confirmLabel={t('Cancel order')}
        message={<>
          {t('Are you sure to cancel this pending order?')}
          <span className="confirm-note">{t('It will not be filled; the customer is notified and the cancel is audited.')}</span>
        </>} />
    </section>
  );
}

function PendingFiltersForm() {
  const { t } = useTranslation();
  const data = useLoaderData<PendingLoader>();
  const [params] = useSearchParams();
  const fv = data.filters;
  const err = data.filterError;
  const invalid = (name: string) => (err?.field === name ? { 'aria-invalid': true, 'aria-describedby': 'pending-filter-error' } : {});
  return (
    <Form method="get" className="card trade-filters" aria-label={t('Filter')}>
      {(['limit'] as const).map((k) => (params.get(k) ? <input key={k} type="hidden" name={k} value={params.get(k)!} /> : null))}
      <div className="field">
        <label htmlFor="filter-status">{t('Status')}</label>
        <select id="filter-status" name="status" defaultValue={fv.status} {...invalid('status')}>
          {(['pending', 'filled', 'cancelled', 'expired'] as const).map((s) => <option key={s} value={s}>{t(PENDING_STATUS_LABELS[s])}</option>)}
          <option value="">{t('All statuses')}</option>
        </select>
      </div>
      <div className="field trade-filter-user">
        <label htmlFor="filter-user">{t('User')}</label>
        <input id="filter-user" name="user" type="text" defaultValue={fv.user} placeholder={t('User ID or email')} autoComplete="off" {...invalid('user')} />
      </div>
      <div className="field">
        <label htmlFor="filter-instrument">{t('Instrument')}</label>
        <select id="filter-instrument" name="instrument" defaultValue={fv.instrument} {...invalid('instrument')}>
          <option value="">{t('All instruments')}</option>
          {data.instruments.map((i) => <option key={i.value} value={i.value}>{i.label}</option>)}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-side">{t('Side')}</label>
        <select id="filter-side" name="side" defaultValue={fv.side} {...invalid('side')}>
          <option value="">{t('Buy and sell')}</option>
          <option value="buy">{t('Buy')}</option>
          <option value="sell">{t('Sell')}</option>
        </select>
      </div>
      <div className="trade-filter-buttons">
        <button type="submit" className="btn btn-primary">{t('Filter')}</button>
        <Link className="btn btn-ghost" to="?">{t('Clear')}</Link>
      </div>
      {err ? <span id="pending-filter-error" className="sr-only">{t(err.message)}</span> : null}
    </Form>
  );
}
