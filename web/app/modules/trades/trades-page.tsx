// The staff trade lists (/admin/trades/all|open|closed, docs/specs.md#admin-trades): one page for
// the three, titled '{type} Trades'. The server pages and filters (user, instrument, side, open
// date: all in the URL; the spec has no free-text search); each row offers Edit ('Edit Order #id'),
// Close (open trades, after confirmation) and Delete (after confirmation), all answered by the
// engine's staff commands through the route's action.
import { useMemo, useState } from 'react';
import { Form, Link, useLoaderData, useSearchParams } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '@tanstack/react-table';
import { getInputProps } from '@conform-to/react';
import { boundText, exact, modifyRanges, money, parseDecimal } from '@broker/engine/domain';
import { DataTable } from '~/components/ui/data-table.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { Field } from '~/components/ui/fields.tsx';
import { plainDecimal, useFormat, type Formatter } from '~/components/ui/format.ts';
import { EditTradeSchema, TRADE_PARSE, TRADE_TITLES, TRADE_TYPES, type TradeType } from './schemas.ts';
import type { TradeRow } from './trades.server.ts';
import { EXACT_COUNT_LIMIT } from '~/shared/count-limits.ts';
import { HistoryLink } from '~/modules/audit/history-link.tsx';
import type { TradesLoader } from './route.server.ts';
import { readNumber } from '~/components/ui/number-input.ts';

type Row = TradeRow & { floatingPnl: number | null };

function Pnl({ value, f }: { value: string | number | null; f: Formatter }) {
  if (value === null) return <span className="muted">—</span>;
  return <span className={Number(value) > 0 ? 'up' : 'down'}>{f.pnl(value)}</span>;
}

export function TradesPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const data = useLoaderData<TradesLoader>();
  const [editing, setEditing] = useState<Row | null>(null);
  const [closing, setClosing] = useState<Row | null>(null);
  const [deleting, setDeleting] = useState<Row | null>(null);
  const title = t(TRADE_TITLES[data.type as TradeType]);

  const columns = useMemo<ColumnDef<Row>[]>(() => [
    {
      id: 'id', accessorKey: 'id', header: t('ID'),
      cell: ({ row: { original: o } }) => (
        <div className="trade-id"><span>{o.id}</span><OpenTime iso={o.createdAt} f={f} />
          {o.positionId ? <span className="muted part-of">{t('Part of #{{id}}', { id: o.positionId })}</span> : null}</div>
      ),
    },
    {
      id: 'user', header: t('User'), enableSorting: false,
      cell: ({ row: { original: o } }) => (
        <div className="trade-user">
          <Link to={`/admin/customers/edit/${o.userId}`} className="trade-email" title={o.email}>{o.email}</Link>
          <span className={`chip chip-${o.mode}`}>{o.mode === 'real' ? t('Real') : t('Demo')} · {o.currency}</span>
        </div>
      ),
    },
    { id: 'type', header: t('Type'), enableSorting: false, cell: ({ row: { original: o } }) => <span className={o.type === 'buy' ? 'up' : 'down'}>{o.type === 'buy' ? t('Buy') : t('Sell')}</span> },
    { id: 'instrument', header: t('Instrument'), enableSorting: false, cell: ({ row: { original: o } }) => o.instrument },
    { id: 'openRate', header: t('Open Rate'), enableSorting: false, cell: ({ row: { original: o } }) => f.rate(o.openRate, o.digits) },
    { id: 'closeRate', header: t('Close Rate'), enableSorting: false, cell: ({ row: { original: o } }) => f.rate(o.closeRate, o.digits) },
    { id: 'spread', header: t('Spread'), enableSorting: false, cell: ({ row: { original: o } }) => <Pnl value={o.spread} f={f} /> },
    { id: 'margin', header: t('Margin Used'), enableSorting: false, cell: ({ row: { original: o } }) => f.money(o.marginUsed, o.currency) },
    {
      id: 'pnl', header: t('Pro/Loss'), enableSorting: false,
      cell: ({ row: { original: o } }) => (o.closeTime ? <Pnl value={o.proLoss} f={f} /> : (
        <span className="trade-floating"><Pnl value={o.floatingPnl} f={f} />{o.floatingPnl !== null ? <span className="muted">{t('floating')}</span> : null}</span>
      )),
    },
    { id: 'profit', header: t('Take Profit'), enableSorting: false, cell: ({ row: { original: o } }) => f.rate(o.profit, o.digits) },
    {
      id: 'loss', header: t('Stop Loss'), enableSorting: false, cell: ({ row: { original: o } }) => (
        <div className="trade-stop">
          <span>{f.rate(o.loss, o.digits)}</span>
          {o.trailing ? <span className="muted">{t('Trailing {{distance}}', { distance: f.rate(o.trailing, o.digits) })}</span> : null}
          {/* the trailing stop's moves (docs/specs.md#trailing-stop), newest first */}
          {o.moves?.length ? (
            <details className="trail-moves">
              <summary>{t('Trailing moves ({{count}})', { count: o.moves.length })}</summary>
              <ol>{o.moves.map((m) => (
                <li key={m.movedAt + m.lossTo}>{f.dateTime(m.movedAt)}: {f.rate(m.lossFrom, o.digits)} → {f.rate(m.lossTo, o.digits)}</li>
              ))}</ol>
            </details>
          ) : null}
        </div>
      ),
    },
    { id: 'leverage', header: t('Leverage'), enableSorting: false, cell: ({ row: { original: o } }) => `1:${f.amount(o.leverage)}` },
    {
      id: 'status', header: t('Status'), enableSorting: false,
      cell: ({ row: { original: o } }) => (o.closeTime
        ? <span className="chip chip-closed" title={f.dateTime(o.closeTime)}>{t('Closed')}</span>
        : <span className="chip chip-open">{t('Open')}</span>),
    },
    {
      id: 'actions', header: t('Actions'), enableSorting: false,
      cell: ({ row: { original: o } }) => (
        <div className="row-actions">
          <IconButton label={t('Edit order #{{id}}', { id: o.id })} icon="edit" onClick={() => setEditing(o)} />
          {o.closeTime ? null : <IconButton label={t('Close order #{{id}}', { id: o.id })} icon="close" onClick={() => setClosing(o)} />}
          <IconButton label={t('Delete order #{{id}}', { id: o.id })} icon="delete" onClick={() => setDeleting(o)} />
          <HistoryLink targetKind="order" targetId={o.id} label={t('History of order #{{id}}', { id: o.id })} icon className="trade-action" />
        </div>
      ),
    },
  ], [t, f]);

  return (
    <section className="page trades-page">
      <h1 className="page-title">{title}</h1>
      <TradeFilters />
      {data.filterError ? <p className="field-error" role="alert">{t(data.filterError.message)}</p> : null}
      <DataTable columns={columns} data={data.rows} total={data.total} searchable={false} getRowId={(r) => String(r.id)} caption={title}
        toolbar={<>
          {data.estimated ? <span className="muted trade-estimate">{t('More than {{limit}} trades match: the total is an estimate.', { limit: f.amount(EXACT_COUNT_LIMIT) })}</span> : null}
          <TypeTabs current={data.type as TradeType} />
        </>} />
      <EditTradeDialog row={editing} onClose={() => setEditing(null)} />
      <ConfirmDialog open={!!closing} onClose={() => setClosing(null)} intent="close"
        fields={closing ? { id: closing.id, unit: closing.lots ? 'lots' : 'amount' } : undefined}
        title={t('Close order #{{id}}', { id: closing?.id ?? '' })} confirmLabel={t('Close trade')} danger={false}
        message={<>
          {t('Are you sure to close this trade?')}
          <span className="confirm-note">{t('It is closed at the live price and its profit/loss is posted to the wallet.')}</span>
          {/* part of it (docs/specs.md#partial-close): empty closes all; the engine checks the lot step and the rest */}
          {closing ? <span className="confirm-note">
            <label htmlFor={`close-qty-${closing.id}`}>{closing.lots ? t('Lots to close') : t('Units to close')}</label>{' '}
            <input id={`close-qty-${closing.id}`} name="quantity" className="input" inputMode="decimal" autoComplete="off"
              placeholder={f.amount(closing.lots ?? closing.amount)} aria-describedby={`close-qty-${closing.id}-hint`} />{' '}
            <span id={`close-qty-${closing.id}-hint`} className="muted">{t('Empty: the whole trade')}</span>
          </span> : null}
        </>} />
      <ConfirmDialog open={!!deleting} onClose={() => setDeleting(null)} intent="delete" fields={deleting ? { id: deleting.id } : undefined}
        title={t('Delete order #{{id}}', { id: deleting?.id ?? '' })} confirmLabel={t('Delete')}
        message={<>
          {t('Are you sure to delete this trade?')}
          <span className="confirm-note">
            {deleting?.closeTime
              ? t('Its profit/loss stays posted in the wallet\'s ledger.')
              : t('Its margin is released; no profit or loss is posted.')}
          </span>
        </>} />
    </section>
  );
}

/** Open time on two lines (date, then time), so the column stays narrow. */
function OpenTime({ iso, f }: { iso: string; f: Formatter }) {
  const text = f.dateTime(iso);
  const cut = text.indexOf(' ');
  return <span className="muted trade-time" title={text}>{cut > 0 ? <>{text.slice(0, cut)}<br />{text.slice(cut + 1)}</> : text}</span>;
}

const ICONS = {
  edit: 'M4 20h4L18.5 9.5a2.1 2.1 0 0 0-4-4L4 16v4zM13.5 6.5l4 4',
  close: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zM9 9l6 6M15 9l-6 6',
  delete: 'M4 7h16M10 11v6M14 11v6M5 7l1 12a2 2 0 0 0 2 2h8a2 2 0 0 0 2-2l1-12M9 7V4h6v3',
};

/** A row action as an icon with its name for screen readers and as a tooltip. */
function IconButton({ label, icon, onClick }: { label: string; icon: keyof typeof ICONS; onClick: () => void }) {
  return (
    <button type="button" className={`btn btn-sm btn-ghost trade-action trade-action-${icon}`} aria-label={label} title={label} onClick={onClick}>
      <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round"><path d={ICONS[icon]} /></svg>
    </button>
  );
}

/** All / Open / Closed, keeping the filters (back to page 1). */
function TypeTabs({ current }: { current: TradeType }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const keep = new URLSearchParams();
  for (const [k, v] of params) if (k !== 'page') keep.set(k, v);
  const qs = keep.toString();
  return (
    <nav className="tabs trade-tabs" aria-label={t('Trades')}>
      {TRADE_TYPES.map((ty) => (
        <Link key={ty} to={`/admin/trades/${ty}${qs ? `?${qs}` : ''}`} className={`tab${ty === current ? ' active' : ''}`} aria-current={ty === current ? 'page' : undefined}>
          {t(TRADE_TITLES[ty])}
        </Link>
      ))}
    </nav>
  );
}

/** The list's filters, a GET form: they go to the URL (page back to 1; size and sort kept). */
function TradeFilters() {
  const { t } = useTranslation();
  const data = useLoaderData<TradesLoader>();
  const [params] = useSearchParams();
  const fv = data.filters;
  const err = data.filterError;
  const invalid = (name: string) => (err?.field === name ? { 'aria-invalid': true, 'aria-describedby': 'trade-filter-error' } : {});
  const active = Object.values(fv).some(Boolean);
  return (
    <Form method="get" className="card trade-filters" aria-label={t('Filter')}>
      {(['limit', 'sort', 'dir'] as const).map((k) => (params.get(k) ? <input key={k} type="hidden" name={k} value={params.get(k)!} /> : null))}
      <div className="field trade-filter-user">
        <label htmlFor="filter-user">{t('User')}</label>
        <input id="filter-user" name="user" type="text" defaultValue={fv.user} placeholder={t('User ID or email')} autoComplete="off" {...invalid('user')} />
      </div>
      <div className="field">
        <label htmlFor="filter-instrument">{t('Instrument')}</label>
        <select id="filter-instrument" name="instrument" defaultValue={fv.instrument} {...invalid('instrument')}>
          <option value="">{t('All instruments')}</option>
          {data.instruments.map((i) => <option key={i.value} value={i.value}>{i.label}</option>)}
          {fv.instrument && !data.instruments.some((i) => i.value === fv.instrument) ? <option value={fv.instrument}>{fv.instrument}</option> : null}
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
      <div className="field">
        <label htmlFor="filter-from">{t('Opened from')}</label>
        <input id="filter-from" name="dateStart" type="date" defaultValue={fv.dateStart} {...invalid('dateStart')} />
      </div>
      <div className="field">
        <label htmlFor="filter-to">{t('Opened to')}</label>
        <input id="filter-to" name="dateEnd" type="date" defaultValue={fv.dateEnd} {...invalid('dateEnd')} />
      </div>
      <div className="trade-filter-buttons">
        <button type="submit" className="btn btn-primary">{t('Filter')}</button>
        {active || err ? <Link className="btn btn-ghost" to="?">{t('Clear')}</Link> : null}
      </div>
      {err ? <span id="trade-filter-error" className="sr-only">{t(err.message)}</span> : null}
    </Form>
  );
}

/** The P/L a closed trade would have with the form's rates (the engine's own exact formula), or null while a number is not valid. */
function previewPnl(row: Row, v: { openRate?: string; closeRate?: string; spread?: string }, read: (text: string) => string): string | null {
  const num = (s: string | undefined, field: 'openRate' | 'closeRate' | 'spread', stored: string) => {
    if (s === undefined || s.trim() === '') return stored;
    const r = parseDecimal(read(s), field);
    return r.ok ? r.value : null;
  };
  const open = num(v.openRate, 'openRate', row.openRate), close = num(v.closeRate, 'closeRate', row.closeRate ?? row.openRate), spread = num(v.spread, 'spread', row.spread);
  if (open === null || close === null || spread === null) return null;
  return money(exact.orderPnl(row.type, row.amount, open, close, spread, row.exchangeRate)).toFixed(8);
}

function EditTradeDialog({ row, onClose }: { row: Row | null; onClose: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  return (
    <FormDialog open={!!row} onClose={onClose} schema={EditTradeSchema} intent="edit" id={row?.id} parse={TRADE_PARSE}
      title={t('Edit Order #{{id}}', { id: row?.id ?? '' })}
      defaultValue={row ? {
        openRate: plainDecimal(row.openRate), closeRate: plainDecimal(row.closeRate), spread: plainDecimal(row.spread),
        profit: plainDecimal(row.profit), loss: plainDecimal(row.loss), openTime: row.createdAt.slice(0, 16),
      } : undefined}>
      {(fields) => {
        if (!row) return null;
        const closed = !!row.closeTime;
        const next = closed ? previewPnl(row, { openRate: fields.openRate.value as string | undefined, closeRate: fields.closeRate.value as string | undefined, spread: fields.spread.value as string | undefined }, (text) => readNumber(text, f.locale) ?? '') : null;
        const diff = next !== null && row.proLoss !== null ? money(next).minus(row.proLoss).toFixed(8) : null;
        // an open trade's levels have the customer's bounds against the open rate (the form's, once valid):
        // shown under the fields, and the engine refuses the rest (a wrong-side stop-loss would close it at once)
        const typedOpen = parseDecimal(readNumber(String(fields.openRate.value ?? ''), f.locale) ?? '', 'openRate');
        const bounds = closed ? null : modifyRanges(row.type, typedOpen.ok ? typedOpen.value : row.openRate);
        const levelHint = (which: 'takeProfit' | 'stopLoss') => {
          if (!bounds) return t('Empty: not set');
          const b = boundText(bounds[which]);
          const values = Object.fromEntries(Object.entries(b.values).map(([k, v]) => [k, f.rate(v, row.digits)]));
          return `${t(b.message, values)} · ${t('Empty: not set')}`;
        };
        return (
          <>
            <p className="trade-edit-summary">
              <strong>{row.type === 'buy' ? t('Buy') : t('Sell')} {f.amount(row.amount)} {row.instrument}</strong>
              <span className="muted"> · {row.email} · {closed ? t('Closed') : t('Open')}</span>
            </p>
            <p className="notice trade-edit-note">{t('Editing a closed trade\'s rates or spread re-computes its profit/loss, and the difference is posted to the wallet through the ledger as a correcting entry.')}</p>
            <div className="form-grid trade-edit-grid">
              <Field label={t('Open Rate')} errors={fields.openRate.errors} inputProps={{ ...getInputProps(fields.openRate, { type: 'text' }), inputMode: 'decimal' }} />
              <Field label={t('Close Rate')} errors={fields.closeRate.errors}
                hint={closed ? undefined : t('Open trades cannot have the close rate edited.')}
                inputProps={{ ...getInputProps(fields.closeRate, { type: 'text' }), inputMode: 'decimal', disabled: !closed }} />
              <Field label={t('Spread')} errors={fields.spread.errors} inputProps={{ ...getInputProps(fields.spread, { type: 'text' }), inputMode: 'decimal' }} />
              <Field label={t('Open Time (UTC)')} errors={fields.openTime.errors} inputProps={{ ...getInputProps(fields.openTime, { type: 'datetime-local' }) }} />
              <Field label={t('Take Profit')} errors={fields.profit.errors} hint={levelHint('takeProfit')}
                inputProps={{ ...getInputProps(fields.profit, { type: 'text' }), inputMode: 'decimal' }} />
              <Field label={t('Stop Loss')} errors={fields.loss.errors} hint={levelHint('stopLoss')}
                inputProps={{ ...getInputProps(fields.loss, { type: 'text' }), inputMode: 'decimal' }} />
            </div>
            {closed ? (
              <dl className="order-preview trade-edit-preview">
                <div><dt>{t('Profit/Loss now')}</dt><dd><Pnl value={row.proLoss} f={f} /></dd></div>
                <div><dt>{t('Profit/Loss after the edit')}</dt><dd>{next === null ? '—' : <Pnl value={next} f={f} />}</dd></div>
                <div><dt>{t('Posted to the wallet')}</dt><dd>{diff === null ? '—' : <><span className={Number(diff) > 0 ? 'up' : Number(diff) < 0 ? 'down' : ''}>{f.pnl(diff)}</span> {row.currency}</>}</dd></div>
              </dl>
            ) : null}
          </>
        );
      }}
    </FormDialog>
  );
}
