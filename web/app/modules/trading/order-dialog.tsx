// Buy and Sell dialogs (docs/specs.md#client-validation, #trading-formulas): conversion rate and lot state loaded
// with a spinner, amount or lots, optional take-profit and stop-loss within their bounds, live
// margin / pip value / spread cost / estimated P/L, BUY or SELL disabled per the spec.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useFetcher } from '@remix-run/react';
import { getFormProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import { Modal } from '~/components/ui/modal.tsx';
import { Spinner } from '~/components/ui/spinner.tsx';
import { Stepper } from '~/components/ui/stepper.tsx';
import { ErrorList, SubmitButton, useSchemaForm, type ListOfErrors } from '~/components/ui/fields.tsx';
import { useFetcherToast, useToast } from '~/components/ui/toast.tsx';
import { useFormat } from '~/components/ui/format.ts';
import type { Category, Range, Side } from '@broker/engine/domain';
import { CONTRACT_SIZE, pendingPriceProblem, sessionEnd } from '@broker/engine/domain';
import {
  DISABLED_MESSAGE, PLUS_MINUS, accountSummary, STEP, allowedRange, dialogLevelRanges, initialLevel, initialPendingPrice, levelProblem, liveLevelRanges,
  preview, quantityProblem, stepAmount, stepPrice, unitsOf,
} from './dialog.ts';
import { LevelInput } from './level-input.tsx';
import { isoToLocal, localToIso } from './dialog.ts';
import { PENDING_EXPIRY_LABELS, pendingTypeLabel } from '~/shared/pending-labels.ts';
import { DASHBOARD_PARSE, PlaceOrderSchema, PlacePendingSchema, type ActionReply } from './schemas.ts';
import { inputNumber, numberValue, readNumber } from '~/components/ui/number-input.ts';

export interface DialogInstrument { id: number; name: string; base: string; quote: string; category: Category; digits: number; minDistance?: number }

export type OrderKind = 'market' | 'limit' | 'stop';
const KINDS: { kind: OrderKind; label: string }[] = [{ kind: 'market', label: 'Market' }, { kind: 'limit', label: 'Limit' }, { kind: 'stop', label: 'Stop' }];

/** What a pending order will do, said before it is sent (translation keys). */
export const PENDING_SUMMARY = {
  buy: {
    limit: 'Buy Limit {{quantity}} {{instrument}} at {{price}}: fills when the ask falls to {{price}} or below, at that price or better. Expires: {{expiry}}. Margin needed when it fills: {{required}}; nothing is reserved now.',
    stop: 'Buy Stop {{quantity}} {{instrument}} at {{price}}: fills when the ask rises to {{price}} or above, at that tick\'s price. Expires: {{expiry}}. Margin needed when it fills: {{required}}; nothing is reserved now.',
  },
  sell: {
    limit: 'Sell Limit {{quantity}} {{instrument}} at {{price}}: fills when the bid rises to {{price}} or above, at that price or better. Expires: {{expiry}}. Margin needed when it fills: {{required}}; nothing is reserved now.',
    stop: 'Sell Stop {{quantity}} {{instrument}} at {{price}}: fills when the bid falls to {{price}} or below, at that tick\'s price. Expires: {{expiry}}. Margin needed when it fills: {{required}}; nothing is reserved now.',
  },
} as const;

export interface OrderDialogProps {
  side: Side;
  instrument: DialogInstrument;
  price: { bid: number; ask: number } | undefined;
  currency: string;
  balance: number;
  usedMargin: number;
  floatingPnl: number;
  leverage: number;
  spreadSetting: number;
  kycBlocked: boolean;
  onClose: () => void;
}

const newKey = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;

interface Loaded { rate: number; lotState: 'amount' | 'lot'; lotSelector: { label: string; value: string }[] }

function LevelField({ id, name, label, on, setOn, text, setText, bound, live, digits, errors }: {
  id: string; name: string; label: string; on: boolean; setOn: (v: boolean) => void; text: string; setText: (v: string) => void;
  bound: Range; live: Range | null; digits: number; errors?: ListOfErrors;
}) {
  return (
    <div className="level-field">
      <label className="switch">
        <input type="checkbox" role="switch" checked={on} onChange={(e) => setOn(e.target.checked)} aria-controls={on ? id : undefined} />
        <span>{label}</span>
      </label>
      {on ? <LevelInput id={id} name={name} label={label} inputLabel={label} text={text} setText={setText} bound={bound} live={live} digits={digits} errors={errors} /> : null}
    </div>
  );
}

export function OrderDialog(p: OrderDialogProps) {
  const { t } = useTranslation();
  const f = useFormat();
  const { push } = useToast();
  const fetcher = useFetcher<ActionReply>();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [qty, setQty] = useState('');
  const [tpOn, setTpOn] = useState(false);
  const [slOn, setSlOn] = useState(false);
  // the levels as typed: a wrong one stays, with its error, until corrected
  const [tpText, setTpText] = useState('');
  const [slText, setSlText] = useState('');
  const [key, setKey] = useState(newKey);
  const { instrument, side } = p;
  const bid = p.price?.bid ?? 0, ask = p.price?.ask ?? 0;
  // Market, or a pending order (Limit / Stop) at a price, with an expiry (docs/specs.md#pending-orders)
  const [kind, setKind] = useState<OrderKind>('market');
  const pendingKind = kind === 'market' ? null : kind;
  const [priceText, setPriceText] = useState('');
  const [expiry, setExpiry] = useState<'gtc' | 'day' | 'at'>('gtc');
  const [expiresLocal, setExpiresLocal] = useState(() => isoToLocal(Date.now() + 86_400_000));
  const minDistance = instrument.minDistance ?? 0;
  const chooseKind = (k: OrderKind) => {
    setKind(k);
    // the price starts on the valid side of the live quote, clear of the minimum distance
    if (k !== 'market') setPriceText(inputNumber(initialPendingPrice(side, k, bid, ask, minDistance, instrument.digits), f.locale));
  };

  // conversion rate and lot state, with a spinner (§4)
  useEffect(() => {
    let gone = false;
    const json = (url: string) => fetch(url, { headers: { accept: 'application/json' } }).then((r) => (r.ok ? r.json() : Promise.reject(r.status)));
    Promise.all([json(`/dashboard/rates?quote=${encodeURIComponent(instrument.quote)}`), json(`/dashboard/lot-state/${instrument.category}`)])
      .then(([r, l]) => { if (!gone) setLoaded({ rate: Number(r.rate), lotState: l.lotState, lotSelector: l.lotSelector }); })
      .catch(() => { if (!gone) { push({ type: 'error', title: 'Something went wrong' }); p.onClose(); } });
    return () => { gone = true; };
  }, [instrument.quote, instrument.category]); // eslint-disable-line react-hooks/exhaustive-deps -- load once per instrument; push and onClose are new functions every render

  const pendingPrice = pendingKind ? numberValue(priceText, f.locale) : NaN;
  const priceTyped = pendingKind ? readNumber(priceText, f.locale) : null;
  const priceProblem = !pendingKind ? null
    : priceTyped === null || !(Number(priceTyped) > 0) ? { message: 'Enter a price', values: {} as Record<string, string> }
      : bid > 0 && ask > 0 ? pendingPriceProblem(side, pendingKind, priceTyped, bid, ask, minDistance) : null;
  // a pending order's levels are bounded by its price, as a market order's by the live quote
  const levelBid = pendingKind ? (pendingPrice > 0 ? pendingPrice : 0) : bid, levelAsk = pendingKind ? (pendingPrice > 0 ? pendingPrice : 0) : ask;
  const ranges = useMemo(() => dialogLevelRanges(side, levelBid, levelAsk), [side, levelBid, levelAsk]);
  const live = useMemo(() => liveLevelRanges(side, pendingKind ? { bid: levelBid, ask: levelAsk } : p.price), [side, pendingKind, levelBid, levelAsk, p.price]);
  const switchTp = (on: boolean) => { setTpOn(on); if (on && !tpText) setTpText(inputNumber(initialLevel(allowedRange(ranges.takeProfit, live?.takeProfit ?? null)), f.locale)); };
  const switchSl = (on: boolean) => { setSlOn(on); if (on && !slText) setSlText(inputNumber(initialLevel(allowedRange(ranges.stopLoss, live?.stopLoss ?? null)), f.locale)); };
  // the texts as the page's language writes them ('0,5' in German), read as the action reads them
  const num = (text: string) => numberValue(text, f.locale);
  const tp = num(tpText), sl = num(slText);
  const levelsBad = (tpOn && !!levelProblem(readNumber(tpText, f.locale) ?? '', ranges.takeProfit, live?.takeProfit ?? null))
    || (slOn && !!levelProblem(readNumber(slText, f.locale) ?? '', ranges.stopLoss, live?.stopLoss ?? null));

  const lotMode = loaded?.lotState === 'lot';
  const units = unitsOf(instrument.category, loaded?.lotState ?? 'amount', num(qty));
  const pv = preview({
    side, category: instrument.category, quote: instrument.quote, digits: instrument.digits, bid, ask, amount: units, leverage: p.leverage,
    conversionRate: loaded?.rate ?? null, spreadSetting: p.spreadSetting, balance: p.balance, usedMargin: p.usedMargin,
    floatingPnl: p.floatingPnl, takeProfit: tpOn ? tp : null, stopLoss: slOn ? sl : null, price: pendingKind ? pendingPrice : null,
  });
  // a pending order reserves nothing now: the margin it will need is shown, checked when it fills
  const disabled = pendingKind && (pv.disabled === 'insufficient_balance' || pv.disabled === 'insufficient_free_margin') ? null : pv.disabled;
  const expiresIso = expiry === 'at' ? localToIso(expiresLocal) : '';
  const expiryProblem = pendingKind && expiry === 'at' && (!expiresIso || new Date(expiresIso).getTime() <= Date.now()) ? 'Expiry time must be in the future' : null;
  // why BUY / SELL is off for what was typed: said under the field, the text kept as typed
  const qtyProblem = loaded ? quantityProblem(qty, loaded.lotState, instrument.category, f.locale) : null;
  const reason = disabled && !qtyProblem ? DISABLED_MESSAGE[disabled] : null;
  const busy = fetcher.state !== 'idle';

  // the order is a Conform form posted by the fetcher: the server's field errors show under the
  // fields; a refusal gets a new idempotency key so the next try is a new order
  useFetcherToast(fetcher, { intent: pendingKind ? 'place-pending' : 'place', onSuccess: p.onClose, onError: () => setKey(newKey()) });
  const [form, fields] = useSchemaForm({
    id: `order-${side}-${kind}`, schema: (pendingKind ? PlacePendingSchema : PlaceOrderSchema) as typeof PlacePendingSchema, parse: DASHBOARD_PARSE,
    lastResult: fetcher.state === 'idle' ? fetcher.data?.result : null,
  });
  const blocked = !!disabled || !!qtyProblem || levelsBad || busy || !!priceProblem || !!expiryProblem;
  const submit = (e: FormEvent<HTMLFormElement>) => {
    if (blocked) return e.preventDefault();
    form.onSubmit(e);
  };
  const qtyErrors: ListOfErrors = [...(fields.amount.errors ?? []), ...(fields.lots.errors ?? [])];

  const title = `${side === 'buy' ? t('Buy') : t('Sell')} ${instrument.base}/${instrument.quote}`;
  const sideLabel = pendingKind ? t('Place {{order}}', { order: t(pendingTypeLabel(side, pendingKind)) }) : side === 'buy' ? t('BUY') : t('SELL');
  // what will happen, said before the order is sent
  const quantityText = lotMode ? t('{{lots}} lots', { lots: f.amount(num(qty) || 0) }) : t('{{units}} units', { units: f.amount(units) });
  const expiryText = expiry === 'at' ? (expiresIso ? f.dateTime(expiresIso) : '—')
    : expiry === 'day' ? t('End of day ({{time}})', { time: f.dateTime(sessionEnd(instrument.category, new Date()).toISOString()) }) : t('Good till cancelled');
  const summaryValues = {
    quantity: quantityText, instrument: `${instrument.base}/${instrument.quote}`, price: f.rate(pendingPrice > 0 ? pendingPrice : null, instrument.digits),
    expiry: expiryText, required: f.money(pv.marginRequired, p.currency),
  };
  const summaryText = pendingKind ? t(PENDING_SUMMARY[side][pendingKind], summaryValues) : t('{{side}} {{quantity}} {{instrument}} now at the market price ({{price}}).', {
    side: side === 'buy' ? t('Buy') : t('Sell'), quantity: quantityText, instrument: `${instrument.base}/${instrument.quote}`, price: f.rate(side === 'buy' ? ask : bid, instrument.digits),
  });
  return (
    <Modal open onClose={p.onClose} title={title} size="md"
      footer={loaded ? (
        <div className="dialog-submit">
          {!blocked ? <p className="order-summary" data-testid="order-summary">{summaryText}</p> : null}
          {reason ? <span className="field-error" role="alert">{t(reason)}</span> : null}
          <SubmitButton form={form.id} tone={side === 'buy' ? 'btn-buy' : 'btn-sell'} pending={busy} disabled={blocked}>{sideLabel}</SubmitButton>
        </div>
      ) : null}>
      {!loaded ? (
        <div className="dialog-loading" role="status"><Spinner /> {t('Loading…')}</div>
      ) : (
        <fetcher.Form method="post" action="/dashboard" className="order-form" {...getFormProps(form)} onSubmit={submit}>
          <input type="hidden" name="intent" value={pendingKind ? 'place-pending' : 'place'} />
          {pendingKind ? <input type="hidden" name="orderType" value={pendingKind} /> : null}
          {pendingKind && expiry === 'at' ? <input type="hidden" name="expiresAt" value={expiresIso} /> : null}
          <input type="hidden" name="type" value={side} />
          <input type="hidden" name="instrument" value={instrument.name} />
          <input type="hidden" name="idempotencyKey" value={key} />
          {p.kycBlocked ? <p className="notice notice-error">{t('Please verify KYC to enable trading.')}</p> : null}
          <div className="order-prices">
            <div><span className="muted">{t('Bid')}</span> <strong className="down">{f.rate(bid, instrument.digits)}</strong></div>
            <div><span className="muted">{t('Ask')}</span> <strong className="up">{f.rate(ask, instrument.digits)}</strong></div>
          </div>
          <div className="segmented" role="radiogroup" aria-label={t('Order type')}>
            {KINDS.map((k) => (
              <label key={k.kind} className={kind === k.kind ? 'segment active' : 'segment'}>
                <input type="radio" name="order-kind" value={k.kind} checked={kind === k.kind} onChange={() => chooseKind(k.kind)} />
                <span>{t(k.label)}</span>
              </label>
            ))}
          </div>
          {pendingKind ? (
            <div className="field">
              <label htmlFor="order-price">{t('{{order}} price', { order: t(pendingTypeLabel(side, pendingKind)) })}</label>
              <Stepper id="order-price" name="price" min={0} value={priceText}
                aria-invalid={priceProblem && priceText.trim() ? true : undefined}
                aria-describedby={[priceProblem ? 'order-price-msg' : '', fields.price?.errors?.length ? 'order-price-error' : ''].filter(Boolean).join(' ') || undefined}
                onValueChange={setPriceText}
                next={(direction) => inputNumber(stepPrice(num(priceText) || initialPendingPrice(side, pendingKind, bid, ask, minDistance, instrument.digits), direction, instrument.digits), f.locale)}
                decreaseLabel={t('Decrease price')} increaseLabel={t('Increase price')} />
              {priceProblem ? (
                <div id="order-price-msg" className="field-error" role="alert">
                  {t(priceProblem.message, Object.fromEntries(Object.entries(priceProblem.values).map(([k2, v]) => [k2, f.rate(v, instrument.digits)])))}
                </div>
              ) : null}
              <ErrorList id="order-price-error" errors={fields.price?.errors} />
            </div>
          ) : null}
          {pendingKind ? (
            <div className="field">
              <label htmlFor="order-expiry">{t('Expiry')}</label>
              <select id="order-expiry" name="expiry" value={expiry} onChange={(e) => setExpiry(e.target.value as typeof expiry)}>
                {(['gtc', 'day', 'at'] as const).map((x) => <option key={x} value={x}>{t(PENDING_EXPIRY_LABELS[x])}</option>)}
              </select>
              {expiry === 'at' ? (
                <>
                  <label htmlFor="order-expires-at" className="sr-only">{t('Expires at')}</label>
                  <input id="order-expires-at" type="datetime-local" value={expiresLocal} onChange={(e) => setExpiresLocal(e.target.value)}
                    aria-invalid={expiryProblem ? true : undefined} aria-describedby={expiryProblem ? 'order-expiry-msg' : undefined} />
                  {expiryProblem ? <div id="order-expiry-msg" className="field-error" role="alert">{t(expiryProblem)}</div> : null}
                </>
              ) : null}
              <ErrorList errors={fields.expiresAt?.errors} />
            </div>
          ) : null}
          {lotMode && loaded.lotSelector.length ? (
            <div className="field">
              <label htmlFor="lot-selector">{t('Lot size')}</label>
              <select id="lot-selector" value="" onChange={(e) => e.target.value && setQty(inputNumber(Number(e.target.value) / CONTRACT_SIZE[instrument.category], f.locale))}>
                <option value="">{t('Choose a lot size')}</option>
                {loaded.lotSelector.map((l) => <option key={l.value} value={l.value}>{l.label}</option>)}
              </select>
            </div>
          ) : null}
          <div className="field">
            <label htmlFor="order-qty">{lotMode ? t('Lots') : t('Amount')}</label>
            <Stepper id="order-qty" name={lotMode ? 'lots' : 'amount'} min={0} step={STEP} value={qty} autoFocus
              aria-invalid={qtyErrors.length || (qtyProblem && qty.trim()) ? true : undefined}
              aria-describedby={[qtyProblem ? 'order-qty-msg' : '', qtyErrors.length ? 'order-qty-error' : ''].filter(Boolean).join(' ') || undefined}
              onValueChange={setQty}
              next={(direction) => inputNumber(stepAmount(num(qty) || 0, direction * PLUS_MINUS), f.locale)}
              decreaseLabel={t('Decrease amount')} increaseLabel={t('Increase amount')} />
            {qtyProblem ? (
              // nothing typed yet is a hint; a wrong value an error
              <div id="order-qty-msg" className={qty.trim() ? 'field-error' : 'field-hint'} role={qty.trim() ? 'alert' : undefined}>
                {t(qtyProblem.message, qtyProblem.values.min ? { min: f.amount(qtyProblem.values.min) } : undefined)}
              </div>
            ) : null}
            <ErrorList id="order-qty-error" errors={qtyErrors} />
            {lotMode ? <div className="field-hint">{t('{{units}} units', { units: f.amount(units) })}</div> : null}
          </div>
          <LevelField id="order-tp" name="profit" errors={fields.profit.errors} label={t('Take Profit')} on={tpOn} setOn={switchTp} text={tpText} setText={setTpText} bound={ranges.takeProfit} live={live?.takeProfit ?? null} digits={instrument.digits} />
          <LevelField id="order-sl" name="loss" errors={fields.loss.errors} label={t('Stop Loss')} on={slOn} setOn={switchSl} text={slText} setText={setSlText} bound={ranges.stopLoss} live={live?.stopLoss ?? null} digits={instrument.digits} />
          <dl className="order-preview" aria-label={t('Order details')}>
            <div><dt>{pendingKind ? t('Margin Required When Filled') : t('Margin Required')}</dt><dd data-testid="margin-required">{f.money(pv.marginRequired, p.currency)}</dd></div>
            <div><dt>{t('Pip Value')}</dt><dd>{f.pnl(pv.pipValue)} {p.currency}</dd></div>
            <div><dt>{t('Spread Cost')}</dt><dd>{f.pnl(pv.spreadCost)} {instrument.quote}</dd></div>
            <div><dt>{t('Leverage')}</dt><dd>1:{p.leverage}</dd></div>
            {tpOn ? <div><dt>{t('Est. P/L at Take Profit')}</dt><dd className={(pv.takeProfitPnl ?? 0) > 0 ? 'up' : 'down'}>{f.money(pv.takeProfitPnl ?? 0, p.currency)}</dd></div> : null}
            {slOn ? <div><dt>{t('Est. P/L at Stop Loss')}</dt><dd className={(pv.stopLossPnl ?? 0) > 0 ? 'up' : 'down'}>{f.money(pv.stopLossPnl ?? 0, p.currency)}</dd></div> : null}
            <div><dt>{t('Free Margin')}</dt><dd>{f.money(accountSummary(p.balance, p.usedMargin, p.floatingPnl).freeMargin, p.currency)}</dd></div>
          </dl>
        </fetcher.Form>
      )}
    </Modal>
  );
}
