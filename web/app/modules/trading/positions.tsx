// Positions (docs/specs.md#client-pages): tabs All Positions / Opened Positions, one server page at a
// time, live market rate and P/L for open rows, Close, and the take-profit / stop-loss modals.
import { useMemo, useState } from 'react';
import { Link, useFetcher, useSearchParams } from '@remix-run/react';
import { getFormProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import { float } from '@broker/engine/domain';
import { DataTable } from '~/components/ui/data-table.tsx';
import { Modal } from '~/components/ui/modal.tsx';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import { SubmitButton, useSchemaForm } from '~/components/ui/fields.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { allowedRange, initialLevel, levelProblem, liveLevelRanges, modalLevelRanges } from './dialog.ts';
import { LevelInput } from './level-input.tsx';
import { DASHBOARD_PARSE, ModifyOrderSchema, type ActionReply } from './schemas.ts';
import type { PendingRow, PositionRow } from './trading.server.ts';
import { PendingOrders } from './pending.tsx';
import { closeReasonLabel } from '@broker/engine/contract/events';
import { inputNumber, readNumber } from '~/components/ui/number-input.ts';
import { CloseDialog, TrailingFields, trailingBlocked } from './position-dialogs.tsx';

export const POSITIONS_PREFIX = 'pos_';


type Prices = Record<string, { bid: number; ask: number } | undefined>;

function LevelModal({ row, field, price, onClose }: { row: PositionRow; field: 'profit' | 'loss'; price: { bid: number; ask: number } | undefined; onClose: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const fetcher = useFetcher<ActionReply>();
  const which = field === 'profit' ? 'takeProfit' : 'stopLoss';
  const bound = modalLevelRanges(row.type, Number(row.openRate))[which];
  // the live side of the price: the open rate may already be past it (a losing position)
  const live = liveLevelRanges(row.type, price)?.[which] ?? null;
  const current = field === 'profit' ? row.profit : row.loss;
  const [on, setOn] = useState(current !== null);
  const [text, setText] = useState(() => inputNumber(current !== null ? Number(current) : initialLevel(allowedRange(bound, live)), f.locale));
  // the stop-loss dialog's trailing stop: while on, the engine moves the stop-loss (its rate is not sent)
  const trails = field === 'loss';
  const [trailOn, setTrailOn] = useState(row.trailing != null);
  const [trailText, setTrailText] = useState(() => inputNumber(row.trailing != null ? Number(row.trailing) : '', f.locale));
  const manual = on && !(trails && trailOn);
  const problem = manual ? levelProblem(readNumber(text, f.locale) ?? '', bound, live) : null;
  const blocked = !!problem || (trails && trailingBlocked(row, trailOn, trailText, f.locale));
  useFetcherToast(fetcher, { onSuccess: onClose });
  const [form, fields] = useSchemaForm({
    id: `level-form-${field}-${row.id}`, schema: ModifyOrderSchema, parse: DASHBOARD_PARSE,
    lastResult: fetcher.state === 'idle' ? fetcher.data?.result : null,
  });
  const isProfit = field === 'profit';
  const label = isProfit ? t('Close at profit') : t('Close at loss');
  return (
    <Modal open onClose={onClose} size="sm" title={isProfit ? t('Take Profit') : t('Stop Loss')}
      footer={<SubmitButton form={form.id} pending={fetcher.state !== 'idle'} disabled={blocked}>
        {isProfit ? t('Set Take Profit') : t('Set Stop Loss')}
      </SubmitButton>}>
      <fetcher.Form method="post" action="/dashboard" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="modify" />
        <input type="hidden" name="orderId" value={row.id} />
        <input type="hidden" name="field" value={field} />
        <p className="muted">{t('Ticket #{{id}} · open rate {{rate}}', { id: row.id, rate: f.rate(row.openRate, row.digits) })}</p>
        <label className="switch">
          <input type="checkbox" role="switch" checked={on} disabled={trails && trailOn} onChange={(e) => setOn(e.target.checked)} />
          <span>{label}</span>
        </label>
        {/* switched off, the input is disabled and not sent: the level is removed (with a trailing stop on: kept, and moved by the engine) */}
        <LevelInput id={`level-${field}-${row.id}`} name="value" label={label} inputLabel={t('Rate')} text={text} setText={setText} bound={bound} live={live} digits={row.digits} disabled={!manual} errors={fields.value.errors} />
        {trails ? <TrailingFields row={row} on={trailOn} setOn={setTrailOn} text={trailText} setText={setTrailText} /> : null}
      </fetcher.Form>
    </Modal>
  );
}

/** Close opens the confirmation (its Yes spins while the close is sent). */
function CloseButton({ row, onClose }: { row: PositionRow; onClose: (row: PositionRow) => void }) {
  const { t } = useTranslation();
  return <button type="button" className="btn btn-sm btn-danger" onClick={() => onClose(row)}>{t('Close')}</button>;
}

export function livePnl(row: PositionRow, q: { bid: number; ask: number } | undefined): { rate: number | null; pnl: number | null } {
  if (row.closeTime) return { rate: Number(row.closeRate), pnl: Number(row.proLoss) };
  if (!q) return { rate: null, pnl: null };
  return {
    rate: float.markRate(row.type, q.bid, q.ask),
    pnl: float.positionPnl(row.type, Number(row.amount), Number(row.openRate), Number(row.spread), Number(row.exchangeRate), q.bid, q.ask),
  };
}

const NO_PENDING = { rows: [] as PendingRow[], total: 0, tab: false };

export function Positions({ rows, total, openOnly, closedOnly = false, prices, currency, pending = NO_PENDING }: {
  rows: PositionRow[]; total: number; openOnly: boolean; closedOnly?: boolean; prices: Prices; currency: string;
  /** the wallet's live pending orders: a page of them on the Pending tab, their count always */
  pending?: { rows: PendingRow[]; total: number; tab: boolean };
}) {
  const { t } = useTranslation();
  const f = useFormat();
  const [params] = useSearchParams();
  const [modal, setModal] = useState<{ row: PositionRow; field: 'profit' | 'loss' } | null>(null);
  // Close asks first, restating the position; the one dialog is the table's, so on the Opened tab
  // the row may leave the page before the answer is read. A failed close is silently ignored (§8).
  const [closing, setClosing] = useState<PositionRow | null>(null);
  const tabHref = (open: boolean | 'pending' | 'closed') => {
    const next = new URLSearchParams(params);
    for (const k of [...next.keys()]) if (k.startsWith(POSITIONS_PREFIX)) next.delete(k);
    if (open) next.set(`${POSITIONS_PREFIX}tab`, open === true ? 'open' : open);
    const s = next.toString();
    return s ? `?${s}` : '.';
  };
  const level = (row: PositionRow, field: 'profit' | 'loss') => {
    const v = field === 'profit' ? row.profit : row.loss;
    const text = v === null ? t('N/A') : f.rate(v, row.digits);
    if (row.closeTime) return <span>{text}</span>;
    const trail = field === 'loss' && row.trailing ? t('Trailing {{distance}}', { distance: f.rate(row.trailing, row.digits) }) : null;
    return (
      <span className="cell-wrap">
        <button type="button" className="link-btn" onClick={() => setModal({ row, field })} data-testid={`${field}-${row.id}`}
          aria-label={`${field === 'profit' ? t('Take Profit') : t('Stop Loss')} #${row.id}: ${text}${trail ? ` (${trail})` : ''}`}>{text}</button>
        {trail ? <span className="muted trailing-note"> {trail}</span> : null}
      </span>
    );
  };
  const columns = useMemo<ColumnDef<PositionRow>[]>(() => [
    { id: 'id', header: t('Ticket'), enableSorting: false, cell: ({ row }) => (row.original.positionId
      ? <span className="cell-wrap"><span>{row.original.id}</span> <span className="muted part-of" data-testid={`part-${row.original.id}`}>{t('Part of #{{id}}', { id: row.original.positionId })}</span></span>
      : row.original.id) },
    { id: 'created', header: t('Open Time'), enableSorting: false, cell: ({ row }) => {
        // the date over the time when the column is narrow, never broken inside either
        const [day, ...time] = f.clientDateTime(row.original.createdAt).split(' ');
        return <span className="cell-wrap"><span>{day}</span> <span>{time.join(' ')}</span></span>;
      },
    },
    { id: 'type', header: t('Type'), enableSorting: false, cell: ({ row }) => <span className={row.original.type === 'buy' ? 'up' : 'down'}>{row.original.type === 'buy' ? t('Buy') : t('Sell')}</span> },
    { id: 'units', header: t('Units'), enableSorting: false, cell: ({ row }) => f.amount(row.original.amount) },
    { id: 'instrument', header: t('Instrument'), enableSorting: false, cell: ({ row }) => `${row.original.base}/${row.original.quote}` },
    { id: 'open', header: t('Open Rate'), enableSorting: false, cell: ({ row }) => f.rate(row.original.openRate, row.original.digits) },
    { id: 'market', header: t('Market Rate'), enableSorting: false, cell: ({ row }) => { const r = livePnl(row.original, prices[row.original.instrument]).rate; return f.rate(row.original.closeTime ? row.original.closeRate : r, row.original.digits); } },
    {
      id: 'pnl', header: t('Profit/Loss'), enableSorting: false, cell: ({ row }) => {
        const v = livePnl(row.original, prices[row.original.instrument]).pnl;
        return v === null ? '—' : <span className={v > 0 ? 'up' : 'down'} data-testid={`pnl-${row.original.id}`}>{f.pnl(row.original.closeTime ? row.original.proLoss : v)}</span>;
      },
    },
    { id: 'tp', header: t('Take Profit'), enableSorting: false, cell: ({ row }) => level(row.original, 'profit') },
    { id: 'sl', header: t('Stop Loss'), enableSorting: false, cell: ({ row }) => level(row.original, 'loss') },
    {
      id: 'status', header: t('Status'), enableSorting: false, cell: ({ row }) => row.original.closeTime ? (
        <span className="status-cell" data-testid={`status-${row.original.id}`}>
          <span className="chip chip-closed">{t('CLOSED')}</span>
          {row.original.closeReason ? <span className="muted close-reason">{t(closeReasonLabel(row.original.closeReason))}</span> : null}
        </span>
      ) : <span className="chip chip-open" data-testid={`status-${row.original.id}`}>{t('OPENED')}</span>,
    },
    { id: 'action', header: '', enableSorting: false, cell: ({ row }) => (row.original.closeTime ? null : <CloseButton row={row.original} onClose={setClosing} />) },
  ], [t, f, prices]); // eslint-disable-line react-hooks/exhaustive-deps -- the cells' other inputs (handlers) change every render; the columns need only these

  return (
    <section className="positions card" aria-label={t('Positions')}>
      <div className="tabs" role="tablist">
        <Link role="tab" aria-selected={!openOnly && !closedOnly && !pending.tab} className={`tab ${!openOnly && !closedOnly && !pending.tab ? 'active' : ''}`} to={tabHref(false)} preventScrollReset replace>{t('All Positions')}</Link>
        <Link role="tab" aria-selected={openOnly && !pending.tab} className={`tab ${openOnly && !pending.tab ? 'active' : ''}`} to={tabHref(true)} preventScrollReset replace>{t('Opened Positions')}</Link>
        <Link role="tab" aria-selected={closedOnly && !pending.tab} className={`tab ${closedOnly && !pending.tab ? 'active' : ''}`} to={tabHref('closed')} preventScrollReset replace>{t('Closed Positions')}</Link>
        <Link role="tab" aria-selected={pending.tab} className={`tab ${pending.tab ? 'active' : ''}`} to={tabHref('pending')} preventScrollReset replace>
          {t('Pending Orders')} <span className="chip" data-testid="pending-count">{f.amount(pending.total)}</span>
        </Link>
        <span className="tabs-note muted">{t('Wallet currency: {{currency}}', { currency })}</span>
      </div>
      {pending.tab ? <PendingOrders rows={pending.rows} total={pending.total} prices={prices} prefix={POSITIONS_PREFIX} /> : (
        <DataTable columns={columns} data={rows} total={total} searchable={false} paramPrefix={POSITIONS_PREFIX} getRowId={(r) => String(r.id)} caption={t('Positions')}
          emptyText={openOnly ? t('No open positions') : closedOnly ? t('No closed positions') : undefined} />
      )}
      {modal ? <LevelModal row={modal.row} field={modal.field} price={prices[modal.row.instrument]} onClose={() => setModal(null)} /> : null}
      {closing ? <CloseDialog row={closing} onClose={() => setClosing(null)} /> : null}
    </section>
  );
}
