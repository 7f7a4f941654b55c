// Buy and Sell dialogs (docs/specs.md#client-validation, #trading-formulas): conversion rate and lot state loaded
// with a spinner, amount or lots, optional take-profit and stop-loss within their bounds, live
// margin / pip value / spread cost / estimated P/L, BUY or SELL disabled per the spec.
import { useEffect, useMemo, useRef, useState } from 'react';
import { useFetcher } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Modal } from '~/components/ui/modal.tsx';
import { Spinner } from '~/components/ui/spinner.tsx';
import { useToast } from '~/components/ui/toast.tsx';
import { useFormat } from '~/components/ui/format.ts';
import type { Category, Range, Side } from '@broker/engine/domain';
import { CONTRACT_SIZE } from '@broker/engine/domain';
import {
  DISABLED_MESSAGE, PLUS_MINUS, accountSummary, STEP, allowedRange, dialogLevelRanges, initialLevel, levelProblem, liveLevelRanges, preview, stepAmount, unitsOf,
} from './dialog.ts';
import { LevelInput } from './level-input.tsx';
import type { ActionReply } from './schemas.ts';

export interface DialogInstrument { id: number; name: string; base: string; quote: string; category: Category; digits: number }

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

interface Loaded { rate: number; lotState: 'amount' | 'lot'; lotSelector: { label: string; value: string }[] }

function LevelField({ id, label, on, setOn, text, setText, bound, live }: {
  id: string; label: string; on: boolean; setOn: (v: boolean) => void; text: string; setText: (v: string) => void;
  bound: Range; live: Range | null;
}) {
  return (
    <div className="level-field">
      <label className="switch">
        <input type="checkbox" role="switch" checked={on} onChange={(e) => setOn(e.target.checked)} aria-controls={id} />
        <span>{label}</span>
      </label>
      {on ? <LevelInput id={id} label={label} inputLabel={label} text={text} setText={setText} bound={bound} live={live} /> : null}
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
  const key = useRef(`${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`);
  const { instrument, side } = p;
  const bid = p.price?.bid ?? 0, ask = p.price?.ask ?? 0;

  // conversion rate and lot state, with a spinner (§4)
  useEffect(() => {
    let gone = false;
    const json = (url: string) => fetch(url, { headers: { accept: 'application/json' } }).then((r) => (r.ok ? r.json() : Promise.reject(r.status)));
    Promise.all([json(`/dashboard/rates?quote=${encodeURIComponent(instrument.quote)}`), json(`/dashboard/lot-state/${instrument.category}`)])
      .then(([r, l]) => { if (!gone) setLoaded({ rate: Number(r.rate), lotState: l.lotState, lotSelector: l.lotSelector }); })
      .catch(() => { if (!gone) { push({ type: 'error', title: 'Something went wrong' }); p.onClose(); } });
    return () => { gone = true; };
  }, [instrument.quote, instrument.category]); // eslint-disable-line react-hooks/exhaustive-deps

  const ranges = useMemo(() => dialogLevelRanges(side, bid, ask), [side, bid, ask]);
  const live = useMemo(() => liveLevelRanges(side, p.price), [side, p.price]);
  const switchTp = (on: boolean) => { setTpOn(on); if (on && !tpText) setTpText(String(initialLevel(allowedRange(ranges.takeProfit, live?.takeProfit ?? null)))); };
  const switchSl = (on: boolean) => { setSlOn(on); if (on && !slText) setSlText(String(initialLevel(allowedRange(ranges.stopLoss, live?.stopLoss ?? null)))); };
  const tp = Number(tpText), sl = Number(slText);
  const levelsBad = (tpOn && !!levelProblem(tpText, ranges.takeProfit, live?.takeProfit ?? null))
    || (slOn && !!levelProblem(slText, ranges.stopLoss, live?.stopLoss ?? null));

  const lotMode = loaded?.lotState === 'lot';
  const units = unitsOf(instrument.category, loaded?.lotState ?? 'amount', Number(qty));
  const pv = preview({
    side, category: instrument.category, quote: instrument.quote, bid, ask, amount: units, leverage: p.leverage,
    conversionRate: loaded?.rate ?? null, spreadSetting: p.spreadSetting, balance: p.balance, usedMargin: p.usedMargin,
    floatingPnl: p.floatingPnl, takeProfit: tpOn ? tp : null, stopLoss: slOn ? sl : null,
  });
  const reason = pv.disabled ? DISABLED_MESSAGE[pv.disabled] : null;
  const busy = fetcher.state !== 'idle';

  useEffect(() => {
    if (fetcher.state !== 'idle' || !fetcher.data || fetcher.data.intent !== 'place') return;
    if (fetcher.data.ok) {
      push({ type: 'success', title: fetcher.data.toast });
      p.onClose();
    } else {
      push({ type: 'error', title: fetcher.data.toast || 'Something went wrong' });
      key.current = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
    }
  }, [fetcher.state, fetcher.data]); // eslint-disable-line react-hooks/exhaustive-deps

  const submit = () => {
    if (pv.disabled || levelsBad || busy) return;
    const body: Record<string, string> = {
      intent: 'place', type: side, instrument: instrument.name,
      profit: tpOn ? String(tp) : '', loss: slOn ? String(sl) : '', idempotencyKey: key.current,
    };
    if (lotMode) body.lots = String(Number(qty)); else body.amount = String(Number(qty));
    fetcher.submit(body, { method: 'post', action: '/dashboard' });
  };

  const title = `${side === 'buy' ? t('Buy') : t('Sell')} ${instrument.base}/${instrument.quote}`;
  const sideLabel = side === 'buy' ? t('BUY') : t('SELL');
  return (
    <Modal open onClose={p.onClose} title={title} size="md"
      footer={loaded ? (
        <div className="dialog-submit">
          {reason ? <span className="field-error" role="alert">{t(reason)}</span> : null}
          <button type="button" className={`btn ${side === 'buy' ? 'btn-buy' : 'btn-sell'}`} disabled={!!pv.disabled || levelsBad || busy} onClick={submit}>
            {busy ? <Spinner /> : null}{sideLabel}
          </button>
        </div>
      ) : null}>
      {!loaded ? (
        <div className="dialog-loading" role="status"><Spinner /> {t('Loading…')}</div>
      ) : (
        <form className="order-form" onSubmit={(e) => { e.preventDefault(); submit(); }}>
          {p.kycBlocked ? <p className="notice notice-error">{t('Please verify KYC to enable trading.')}</p> : null}
          <div className="order-prices">
            <div><span className="muted">{t('Bid')}</span> <strong className="down">{f.rate(bid, instrument.digits)}</strong></div>
            <div><span className="muted">{t('Ask')}</span> <strong className="up">{f.rate(ask, instrument.digits)}</strong></div>
          </div>
          {lotMode && loaded.lotSelector.length ? (
            <div className="field">
              <label htmlFor="lot-selector">{t('Lot size')}</label>
              <select id="lot-selector" value="" onChange={(e) => e.target.value && setQty(String(Number(e.target.value) / CONTRACT_SIZE[instrument.category]))}>
                <option value="">{t('Choose a lot size')}</option>
                {loaded.lotSelector.map((l) => <option key={l.value} value={l.value}>{l.label}</option>)}
              </select>
            </div>
          ) : null}
          <div className="field">
            <label htmlFor="order-qty">{lotMode ? t('Lots') : t('Amount')}</label>
            <div className="stepper">
              <button type="button" className="btn btn-ghost btn-sm" aria-label={t('Decrease amount')} onClick={() => setQty(String(stepAmount(Number(qty) || 0, -PLUS_MINUS)))}>−</button>
              <input id="order-qty" type="number" inputMode="decimal" min={0} step={STEP} value={qty} autoFocus
                onChange={(e) => { const v = e.target.value; if (v === '' || Number(v) >= 0) setQty(v); }} />
              <button type="button" className="btn btn-ghost btn-sm" aria-label={t('Increase amount')} onClick={() => setQty(String(stepAmount(Number(qty) || 0, PLUS_MINUS)))}>+</button>
            </div>
            {lotMode ? <div className="field-hint">{t('{{units}} units', { units: f.amount(units) })}</div> : null}
          </div>
          <LevelField id="order-tp" label={t('Take Profit')} on={tpOn} setOn={switchTp} text={tpText} setText={setTpText} bound={ranges.takeProfit} live={live?.takeProfit ?? null} />
          <LevelField id="order-sl" label={t('Stop Loss')} on={slOn} setOn={switchSl} text={slText} setText={setSlText} bound={ranges.stopLoss} live={live?.stopLoss ?? null} />
          <dl className="order-preview" aria-label={t('Order details')}>
            <div><dt>{t('Margin Required')}</dt><dd data-testid="margin-required">{f.money(pv.marginRequired, p.currency)}</dd></div>
            <div><dt>{t('Pip Value')}</dt><dd>{f.pnl(pv.pipValue)} {p.currency}</dd></div>
            <div><dt>{t('Spread Cost')}</dt><dd>{f.pnl(pv.spreadCost)} {instrument.quote}</dd></div>
            <div><dt>{t('Leverage')}</dt><dd>1:{p.leverage}</dd></div>
            {tpOn ? <div><dt>{t('Est. P/L at Take Profit')}</dt><dd className={(pv.takeProfitPnl ?? 0) > 0 ? 'up' : 'down'}>{f.money(pv.takeProfitPnl ?? 0, p.currency)}</dd></div> : null}
            {slOn ? <div><dt>{t('Est. P/L at Stop Loss')}</dt><dd className={(pv.stopLossPnl ?? 0) > 0 ? 'up' : 'down'}>{f.money(pv.stopLossPnl ?? 0, p.currency)}</dd></div> : null}
            <div><dt>{t('Free Margin')}</dt><dd>{f.money(accountSummary(p.balance, p.usedMargin, p.floatingPnl).freeMargin, p.currency)}</dd></div>
          </dl>
        </form>
      )}
    </Modal>
  );
}
