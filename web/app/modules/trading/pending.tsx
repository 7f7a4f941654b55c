// The positions area's Pending tab (docs/specs.md#pending-orders): the wallet's live pending
// orders, one server page at a time, with the live price each waits for, Modify (price, levels,
// expiry) and Cancel. The rows change live: the pending.* events reload the page's data.
import { useMemo, useState } from 'react';
import { useFetcher } from '@remix-run/react';
import { getFormProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import { DataTable } from '~/components/ui/data-table.tsx';
import { Modal } from '~/components/ui/modal.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { Stepper } from '~/components/ui/stepper.tsx';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import { ErrorList, SubmitButton, useSchemaForm } from '~/components/ui/fields.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { inputNumber, numberValue, readNumber } from '~/components/ui/number-input.ts';
import { pendingPriceProblem, pendingQuote } from '@broker/engine/domain';
import { dialogLevelRanges, initialLevel, allowedRange, isoToLocal, levelProblem, liveLevelRanges, localToIso, stepPrice } from './dialog.ts';
import { LevelInput } from './level-input.tsx';
import { PENDING_EXPIRY_LABELS, pendingTypeLabel } from '~/shared/pending-labels.ts';
import { DASHBOARD_PARSE, ModifyPendingSchema, type ActionReply } from './schemas.ts';
import type { PendingRow } from './trading.server.ts';

type Prices = Record<string, { bid: number; ask: number } | undefined>;

const toLocal = (iso: string) => isoToLocal(new Date(iso).getTime());

function ModifyPending({ row, price, onClose }: { row: PendingRow; price: { bid: number; ask: number } | undefined; onClose: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const fetcher = useFetcher<ActionReply>();
  const [priceText, setPriceText] = useState(() => inputNumber(Number(row.price), f.locale));
  const [tpOn, setTpOn] = useState(row.profit !== null);
  const [slOn, setSlOn] = useState(row.loss !== null);
  const p = numberValue(priceText, f.locale);
  const ranges = dialogLevelRanges(row.type, p > 0 ? p : 0, p > 0 ? p : 0);
  const live = liveLevelRanges(row.type, p > 0 ? { bid: p, ask: p } : undefined);
  const [tpText, setTpText] = useState(() => inputNumber(row.profit !== null ? Number(row.profit) : initialLevel(allowedRange(ranges.takeProfit, live?.takeProfit ?? null)), f.locale));
  const [slText, setSlText] = useState(() => inputNumber(row.loss !== null ? Number(row.loss) : initialLevel(allowedRange(ranges.stopLoss, live?.stopLoss ?? null)), f.locale));
  const [expiry, setExpiry] = useState(row.expiry);
  const [expiresLocal, setExpiresLocal] = useState(() => (row.expiresAt ? toLocal(row.expiresAt) : toLocal(new Date(Date.now() + 86_400_000).toISOString())));
  const typed = readNumber(priceText, f.locale);
  const priceProblem = typed === null || !(Number(typed) > 0) ? { message: 'Enter a price', values: {} as Record<string, string> }
    : price ? pendingPriceProblem(row.type, row.orderType, typed, price.bid, price.ask, row.minDistance) : null;
  const levelsBad = (tpOn && !!levelProblem(readNumber(tpText, f.locale) ?? '', ranges.takeProfit, live?.takeProfit ?? null))
    || (slOn && !!levelProblem(readNumber(slText, f.locale) ?? '', ranges.stopLoss, live?.stopLoss ?? null));
  const expiresIso = expiry === 'at' ? localToIso(expiresLocal) : '';
  const expiryProblem = expiry === 'at' && (!expiresIso || new Date(expiresIso).getTime() <= Date.now());
  useFetcherToast(fetcher, { onSuccess: onClose });
  const [form, fields] = useSchemaForm({
    id: `modify-pending-${row.id}`, schema: ModifyPendingSchema, parse: DASHBOARD_PARSE,
    lastResult: fetcher.state === 'idle' ? fetcher.data?.result : null,
  });
  const name = t(pendingTypeLabel(row.type, row.orderType));
  return (
    <Modal open onClose={onClose} size="sm" title={t('Modify pending order #{{id}}', { id: row.id })}
      footer={<SubmitButton form={form.id} pending={fetcher.state !== 'idle'} disabled={!!priceProblem || levelsBad || expiryProblem}>{t('Save')}</SubmitButton>}>
      <fetcher.Form method="post" action="/dashboard" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="modify-pending" />
        <input type="hidden" name="pendingId" value={row.id} />
        {expiry === 'at' ? <input type="hidden" name="expiresAt" value={expiresIso} /> : null}
        <p className="muted">{t('{{order}} {{units}} {{instrument}}', { order: name, units: f.amount(row.amount), instrument: `${row.base}/${row.quote}` })}</p>
        <div className="field">
          <label htmlFor={`pending-price-${row.id}`}>{t('{{order}} price', { order: name })}</label>
          <Stepper id={`pending-price-${row.id}`} name="price" value={priceText} onValueChange={setPriceText}
            next={(d) => inputNumber(stepPrice(numberValue(priceText, f.locale) || Number(row.price), d, row.digits), f.locale)}
            aria-invalid={priceProblem ? true : undefined} aria-describedby={priceProblem ? `pending-price-${row.id}-msg` : undefined}
            decreaseLabel={t('Decrease price')} increaseLabel={t('Increase price')} />
          {priceProblem ? (
            <div id={`pending-price-${row.id}-msg`} className="field-error" role="alert">
              {t(priceProblem.message, Object.fromEntries(Object.entries(priceProblem.values).map(([k, v]) => [k, f.rate(v, row.digits)])))}
            </div>
          ) : null}
          <ErrorList errors={fields.price.errors} />
        </div>
        <div className="level-field">
          <label className="switch">
            <input type="checkbox" role="switch" checked={tpOn} onChange={(e) => setTpOn(e.target.checked)} />
            <span>{t('Take Profit')}</span>
          </label>
          {/* switched off, the field is disabled and not sent: the level is removed */}
          <LevelInput id={`pending-tp-${row.id}`} name="profit" label={t('Take Profit')} inputLabel={t('Take Profit')} text={tpText} setText={setTpText}
            bound={ranges.takeProfit} live={live?.takeProfit ?? null} digits={row.digits} disabled={!tpOn} errors={fields.profit.errors} />
        </div>
        <div className="level-field">
          <label className="switch">
            <input type="checkbox" role="switch" checked={slOn} onChange={(e) => setSlOn(e.target.checked)} />
            <span>{t('Stop Loss')}</span>
          </label>
          <LevelInput id={`pending-sl-${row.id}`} name="loss" label={t('Stop Loss')} inputLabel={t('Stop Loss')} text={slText} setText={setSlText}
            bound={ranges.stopLoss} live={live?.stopLoss ?? null} digits={row.digits} disabled={!slOn} errors={fields.loss.errors} />
        </div>
        <div className="field">
          <label htmlFor={`pending-expiry-${row.id}`}>{t('Expiry')}</label>
          <select id={`pending-expiry-${row.id}`} name="expiry" value={expiry} onChange={(e) => setExpiry(e.target.value as typeof expiry)}>
            {(['gtc', 'day', 'at'] as const).map((x) => <option key={x} value={x}>{t(PENDING_EXPIRY_LABELS[x])}</option>)}
          </select>
          {expiry === 'at' ? (
            <>
              <label htmlFor={`pending-expires-${row.id}`} className="sr-only">{t('Expires at')}</label>
              <input id={`pending-expires-${row.id}`} type="datetime-local" value={expiresLocal} onChange={(e) => setExpiresLocal(e.target.value)}
                aria-invalid={expiryProblem ? true : undefined} />
              {expiryProblem ? <div className="field-error" role="alert">{t('Expiry time must be in the future')}</div> : null}
            </>
          ) : null}
          <ErrorList errors={fields.expiresAt.errors} />
        </div>
      </fetcher.Form>
    </Modal>
  );
}

export function PendingOrders({ rows, total, prices, prefix }: { rows: PendingRow[]; total: number; prices: Prices; prefix: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [modifying, setModifying] = useState<PendingRow | null>(null);
  const [cancelling, setCancelling] = useState<PendingRow | null>(null);
  const columns = useMemo<ColumnDef<PendingRow>[]>(() => [
    { id: 'id', header: t('Ticket'), enableSorting: false, cell: ({ row }) => row.original.id },
    { id: 'created', header: t('Placed'), enableSorting: false, cell: ({ row }) => {
        const [day, ...time] = f.clientDateTime(row.original.createdAt).split(' ');
        return <span className="cell-wrap"><span>{day}</span> <span>{time.join(' ')}</span></span>;
      },
    },
    { id: 'type', header: t('Type'), enableSorting: false, cell: ({ row }) => (
      <span className={row.original.type === 'buy' ? 'up' : 'down'}>{t(pendingTypeLabel(row.original.type, row.original.orderType))}</span>
    ) },
    { id: 'units', header: t('Units'), enableSorting: false, cell: ({ row }) => f.amount(row.original.amount) },
    { id: 'instrument', header: t('Instrument'), enableSorting: false, cell: ({ row }) => `${row.original.base}/${row.original.quote}` },
    { id: 'price', header: t('Price'), enableSorting: false, cell: ({ row }) => <span data-testid={`pending-price-${row.original.id}`}>{f.rate(row.original.price, row.original.digits)}</span> },
    { id: 'market', header: t('Market Rate'), enableSorting: false, cell: ({ row }) => {
        const q = prices[row.original.instrument];
        return f.rate(q ? pendingQuote(row.original.type, q.bid, q.ask) as number : null, row.original.digits);
      },
    },
    { id: 'tp', header: t('Take Profit'), enableSorting: false, cell: ({ row }) => (row.original.profit === null ? t('N/A') : f.rate(row.original.profit, row.original.digits)) },
    { id: 'sl', header: t('Stop Loss'), enableSorting: false, cell: ({ row }) => (row.original.loss === null ? t('N/A') : f.rate(row.original.loss, row.original.digits)) },
    { id: 'expiry', header: t('Expiry'), enableSorting: false, cell: ({ row }) => (row.original.expiresAt
      ? <span title={t(PENDING_EXPIRY_LABELS[row.original.expiry])}>{f.clientDateTime(row.original.expiresAt)}</span> : t('Good till cancelled')) },
    { id: 'action', header: '', enableSorting: false, cell: ({ row }) => (
      <span className="row-actions">
        <button type="button" className="btn btn-sm" onClick={() => setModifying(row.original)} aria-label={t('Modify pending order #{{id}}', { id: row.original.id })}>{t('Modify')}</button>
        <button type="button" className="btn btn-sm btn-danger" onClick={() => setCancelling(row.original)} aria-label={t('Cancel pending order #{{id}}', { id: row.original.id })}>{t('Cancel')}</button>
      </span>
    ) },
  ], [t, f, prices]);
  return (
    <>
      <DataTable columns={columns} data={rows} total={total} searchable={false} paramPrefix={prefix} getRowId={(r) => String(r.id)} caption={t('Pending Orders')}
        emptyText={t('No pending orders')} />
      {modifying ? <ModifyPending row={modifying} price={prices[modifying.instrument]} onClose={() => setModifying(null)} /> : null}
      <ConfirmDialog open={!!cancelling} onClose={() => setCancelling(null)} intent="cancel-pending" action="/dashboard"
        fields={cancelling ? { pendingId: cancelling.id } : undefined} title={t('Cancel pending order #{{id}}', { id: cancelling?.id ?? '' })}
        confirmLabel={t('Cancel order')}
        message={cancelling ? t('Cancel this {{order}} of {{units}} {{instrument}} at {{price}}? It will not be filled.', {
          order: t(pendingTypeLabel(cancelling.type, cancelling.orderType)), units: f.amount(cancelling.amount),
          instrument: `${cancelling.base}/${cancelling.quote}`, price: f.rate(cancelling.price, cancelling.digits),
        }) : null} />
    </>
  );
}
