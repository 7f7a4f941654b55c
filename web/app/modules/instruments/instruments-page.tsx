// The one page of the five instrument routes (docs/specs.md#trading-configuration): the server-paged table of a category,
// the add / edit dialog and the delete confirmation. Bids and asks are the quotes the engine saves
// every few seconds; the page reads them again while it is open and no dialog is.
import { useEffect, useMemo, useState } from 'react';
import { useFetchers, useLoaderData, useRevalidator } from '@remix-run/react';
import { getInputProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import type { Category } from '@broker/engine/domain';
import { DataTable } from '~/components/ui/data-table.tsx';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { CheckboxField, ErrorList, Field } from '~/components/ui/fields.tsx';
import { plainDecimal, useFormat } from '~/components/ui/format.ts';
import type { instrumentsLoader, InstrumentAdminRow } from './instruments-admin.server.ts';
import { CATALOG_PARSE, InstrumentSchema } from './schemas.ts';

/** The page titles of the permission map. */
export const CATEGORY_TITLES: Record<Category, string> = {
  forex: 'Forex', commodity: 'Commodities', index: 'Indices', crypto: 'Crypto', stock: 'Stocks',
};

/** Chart providers the charts know (a suggestion list; any provider prefix may be typed). */
const CHART_PROVIDERS = ['OANDA', 'FX', 'FOREXCOM', 'COINBASE', 'BINANCE', 'NASDAQ', 'NYSE', 'TVC', 'CAPITALCOM'];

const REFRESH_MS = 5000;

type Editing = { row: InstrumentAdminRow | null } | null;

export function InstrumentsPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const { category, rows, total } = useLoaderData<typeof instrumentsLoader>();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<InstrumentAdminRow | null>(null);
  const title = t(CATEGORY_TITLES[category]);

  // live-ish quotes: the stored bids / asks again every few seconds, unless a dialog or a post is open
  const { revalidate, state } = useRevalidator();
  const busy = useFetchers().some((x) => x.state !== 'idle');
  const quiet = !editing && !deleting && !busy && state === 'idle';
  useEffect(() => {
    if (!quiet) return;
    const timer = setInterval(() => { if (document.visibilityState === 'visible') revalidate(); }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [quiet, revalidate]);

  const columns = useMemo<ColumnDef<InstrumentAdminRow>[]>(() => [
    { id: 'id', header: t('ID'), cell: ({ row }) => row.original.id },
    { id: 'name', header: t('Instrument'), cell: ({ row }) => <strong>{row.original.name}</strong> },
    { id: 'base', header: t('Base'), cell: ({ row }) => row.original.base },
    { id: 'quote', header: t('Quote'), cell: ({ row }) => row.original.quote },
    { id: 'bids', header: t('Bids'), enableSorting: false, cell: ({ row }) => <span className="num">{f.rate(row.original.bids, row.original.digits)}</span> },
    { id: 'asks', header: t('Asks'), enableSorting: false, cell: ({ row }) => <span className="num">{f.rate(row.original.asks, row.original.digits)}</span> },
    { id: 'tradingview', header: t('Chart Provider'), cell: ({ row }) => row.original.tradingview },
    { id: 'alias', header: t('Alias'), cell: ({ row }) => row.original.alias ?? '—' },
    { id: 'leverage', header: t('Leverage'), cell: ({ row }) => <span className="num">{f.amount(row.original.leverage)}</span> },
    {
      id: 'tradable', header: t('Tradable'),
      cell: ({ row }) => <span className={`chip ${row.original.tradable ? 'chip-open' : 'chip-closed'}`}>{row.original.tradable ? t('Yes') : t('No')}</span>,
    },
    {
      id: 'actions', header: t('Actions'), enableSorting: false,
      cell: ({ row }) => (
        <div className="row-actions">
          <button type="button" className="btn btn-sm btn-ghost" aria-label={t('Edit {{name}}', { name: row.original.name })}
            onClick={() => setEditing({ row: row.original })}>{t('Edit')}</button>
          <button type="button" className="btn btn-sm btn-ghost btn-danger-text" aria-label={t('Delete {{name}}', { name: row.original.name })}
            onClick={() => setDeleting(row.original)}>{t('Delete')}</button>
        </div>
      ),
    },
  ], [t, f]);

  const row = editing?.row ?? null;
  const defaults = row
    ? {
      name: row.name, base: row.base, quote: row.quote, tradingview: row.tradingview, alias: row.alias ?? '', leverage: String(row.leverage),
      digits: String(row.digits), swap: plainDecimal(row.swap), bids: '', asks: '', tradable: row.tradable ? 'on' : undefined,
      trailingMin: plainDecimal(row.trailingMin ?? ''),
      pendingMinDistance: plainDecimal(row.pendingMinDistance),
    }
    : { tradingview: category === 'crypto' ? 'COINBASE' : category === 'stock' ? 'NASDAQ' : 'OANDA', leverage: '0', digits: category === 'forex' ? '5' : '2', swap: '0', tradable: 'on', pendingMinDistance: '0' };

  return (
    <section className="page">
      <h1 className="page-title">{title}</h1>
      <DataTable columns={columns} data={rows} total={total} getRowId={(r) => String(r.id)} caption={title}
        toolbar={<button type="button" className="btn btn-sm btn-primary" onClick={() => setEditing({ row: null })}>{t('Add New')}</button>} />

      <FormDialog open={!!editing} onClose={() => setEditing(null)} id={row?.id} intent="save" schema={InstrumentSchema} parse={CATALOG_PARSE}
        title={row ? t('Edit Instrument') : t('Add Instrument')} defaultValue={defaults} size="lg">
        {(fields) => {
          const untradable = fields.tradable.value !== 'on';
          // the symbol and currencies of open positions stay (the server refuses a change too)
          const locked = !!row && row.openPositions > 0;
          const asking = !!row && row.tradable && untradable && (row.openPositions > 0 || !!fields.confirmOpen.errors?.length);
          return (
            <>
              <p className="muted">{t('Category')}: <strong>{title}</strong></p>
              <div className="form-grid form-grid-3">
                <Field label={t('Name')} errors={fields.name.errors} hint={locked ? t('Fixed while it has open positions') : t('The symbol the feed uses, like EUR_USD')}
                  inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'off', readOnly: locked }} />
                <Field label={t('Base')} errors={fields.base.errors} hint={locked ? t('Fixed while it has open positions') : undefined}
                  inputProps={{ ...getInputProps(fields.base, { type: 'text' }), autoComplete: 'off', readOnly: locked }} />
                <Field label={t('Quote')} errors={fields.quote.errors} hint={locked ? t('Fixed while it has open positions') : t('The currency prices are quoted in')}
                  inputProps={{ ...getInputProps(fields.quote, { type: 'text' }), autoComplete: 'off', readOnly: locked }} />
                <Field label={t('Alias')} errors={fields.alias.errors} inputProps={{ ...getInputProps(fields.alias, { type: 'text' }), autoComplete: 'off' }} />
                <Field label={t('Chart Provider')} errors={fields.tradingview.errors}
                  inputProps={{ ...getInputProps(fields.tradingview, { type: 'text' }), list: 'chart-providers', autoComplete: 'off' }} />
                <Field label={t('Leverage')} errors={fields.leverage.errors} hint={t('Used when the customer\'s plan has none; 0 means 1:1')}
                  inputProps={{ ...getInputProps(fields.leverage, { type: 'text' }), inputMode: 'numeric' }} />
                <Field label={t('Bids')} errors={fields.bids.errors} inputProps={{ ...getInputProps(fields.bids, { type: 'text' }), inputMode: 'decimal' }}
                  hint={row ? t('Saved: {{price}}', { price: f.rate(row.bids, row.digits) }) : undefined} />
                <Field label={t('Asks')} errors={fields.asks.errors} inputProps={{ ...getInputProps(fields.asks, { type: 'text' }), inputMode: 'decimal' }}
                  hint={row ? t('Saved: {{price}}', { price: f.rate(row.asks, row.digits) }) : undefined} />
                <Field label={t('Digits')} errors={fields.digits.errors} hint={t('Decimals of its prices')}
                  inputProps={{ ...getInputProps(fields.digits, { type: 'text' }), inputMode: 'numeric' }} />
                <p className="field-hint span-all">
                  {row
                    ? t('Leave bids and asks empty to keep the price the engine saved: the feed replaces it every few seconds.')
                    : t('Bids and asks are optional: the starting price until the feed sends one.')}
                </p>
                <Field label={t('Swap (%)')} errors={fields.swap.errors} inputProps={{ ...getInputProps(fields.swap, { type: 'text' }), inputMode: 'decimal' }} />
                <Field label={t('Minimum trailing distance')} errors={fields.trailingMin.errors} hint={t('Price units; empty: 10 pips')}
                  inputProps={{ ...getInputProps(fields.trailingMin, { type: 'text' }), inputMode: 'decimal' }} />
                <Field label={t('Pending order distance')} errors={fields.pendingMinDistance.errors} hint={t('How far from the live price a pending order\'s price must be, in price units; 0: anywhere on its side')}
                  inputProps={{ ...getInputProps(fields.pendingMinDistance, { type: 'text' }), inputMode: 'decimal' }} />
                <div className="tradable-box">
                  <CheckboxField label={t('Tradable')} inputProps={getInputProps(fields.tradable, { type: 'checkbox' })} />
                </div>
                {asking ? (
                  <div className="span-all notice notice-warn" role="note">
                    {row.openPositions > 0 ? <p><strong>{t('Open positions on this instrument: {{count}}', { count: row.openPositions })}</strong></p> : null}
                    <p>{t('Open positions stay open: they can still be closed, and their take-profit, stop-loss and stop-out still apply. No new orders can be placed while the instrument is untradable.')}</p>
                    <CheckboxField label={t('I understand: make it untradable')} inputProps={getInputProps(fields.confirmOpen, { type: 'checkbox' })} />
                    <ErrorList errors={fields.confirmOpen.errors} />
                  </div>
                ) : null}
              </div>
              <datalist id="chart-providers">{CHART_PROVIDERS.map((p) => <option key={p} value={p} />)}</datalist>
            </>
          );
        }}
      </FormDialog>

      <ConfirmDialog open={!!deleting} onClose={() => setDeleting(null)} intent="delete" fields={deleting ? { id: deleting.id } : undefined}
        title={deleting ? t('Delete {{name}}', { name: deleting.name }) : undefined}
        message={<>
          {t('Are you sure to delete this pair?')}
          {deleting && deleting.openPositions > 0 ? <><br /><span className="down">{t('Open positions on this instrument: {{count}}. Close them before deleting it.', { count: deleting.openPositions })}</span></> : null}
        </>} />
    </section>
  );
}
