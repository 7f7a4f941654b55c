// The order dialog's and the take-profit / stop-loss modals' rules (docs/specs.md#client-validation, #trading-formulas),
// built on the engine's domain functions so the preview and the server agree.
import {
  MIN_LOTS, boundText, checkMargin, dialogRanges, effectiveLeverage, estimatedPnl, float, inRange, intersectRanges, marginRequired,
  modifyRanges, pipSize, pipValue, planValue, spreadCost, untriggeredRanges, type Category, type Exposure, type Range, type Side,
} from '@broker/engine/domain';
import { numberValue } from '~/components/ui/number-input.ts';

export const STEP = 0.00001;
export const PLUS_MINUS = 1;

export type DisabledReason = 'empty' | 'insufficient_balance' | 'insufficient_free_margin' | 'no_price' | 'no_rate';

/** The message shown under a disabled BUY / SELL, if any (spec §5). */
export const DISABLED_MESSAGE: Record<DisabledReason, string | null> = {
  empty: null,
  insufficient_balance: 'Insufficient Balance!',
  insufficient_free_margin: 'Insufficient Free Margin!',
  no_price: null,
  no_rate: null,
};

export interface PreviewInput {
  side: Side;
  category: Category;
  quote: string;
  /** the instrument's price digits: its pip size outside forex */
  digits: number;
  bid: number;
  ask: number;
  /** units (already converted from lots) */
  amount: number;
  leverage: number;
  /** quote-currency units per balance-currency unit; null while loading */
  conversionRate: number | null;
  spreadSetting: number;
  balance: number;
  usedMargin: number;
  floatingPnl: number;
  takeProfit: number | null;
  stopLoss: number | null;
  /** a pending order's price: the figures are those of its fill there (else the live side's price) */
  price?: number | null;
}

export interface Preview {
  entry: number;
  marginRequired: number;
  pipValue: number;
  spreadCost: number;
  takeProfitPnl: number | null;
  stopLossPnl: number | null;
  disabled: DisabledReason | null;
}

export function preview(i: PreviewInput): Preview {
  const entry = i.price && i.price > 0 ? i.price : float.markRate(i.side, i.bid, i.ask);
  const amount = Number.isFinite(i.amount) && i.amount > 0 ? i.amount : 0;
  const rate = i.conversionRate && i.conversionRate > 0 ? i.conversionRate : null;
  const spread = spreadCost(i.bid, i.ask, i.spreadSetting, amount);
  const margin = rate ? marginRequired(entry, amount, i.leverage, rate) : null;
  const at = (level: number | null) => (level && rate ? estimatedPnl(i.side, amount, entry, level, spread, rate).toNumber() : null);
  let disabled: DisabledReason | null;
  if (amount <= 0) disabled = 'empty';
  else if (!(i.bid > 0 && i.ask > 0)) disabled = 'no_price';
  else if (!rate || !margin) disabled = 'no_rate';
  else disabled = checkMargin(margin, i.balance, i.usedMargin, i.floatingPnl);
  return {
    entry,
    marginRequired: margin?.toNumber() ?? 0,
    pipValue: rate && amount > 0 ? pipValue(pipSize(i), amount, rate).toNumber() : 0,
    spreadCost: spread.toNumber(),
    takeProfitPnl: at(i.takeProfit),
    stopLossPnl: at(i.stopLoss),
    disabled,
  };
}

/** What is wrong with what the dialog holds, as a message key and its values; null when it is valid. */
export interface LevelProblem { message: string; values: Record<string, string> }

/**
 * Why BUY / SELL is disabled for the typed amount or lots, said under the field (the text stays as
 * typed): empty, not above 0, or fewer lots than the smallest (the engine refuses the same).
 */
export function quantityProblem(typed: string, lotState: 'amount' | 'lot', category: Category, locale = 'en'): LevelProblem | null {
  const lots = lotState === 'lot';
  if (typed.trim() === '') return lots ? { message: 'Enter the lots', values: {} } : { message: 'Enter an amount', values: {} };
  // as the page's language writes it ('0,5' in German)
  const v = numberValue(typed, locale);
  if (!Number.isFinite(v) || v <= 0) return lots ? { message: 'Lots must be greater than 0', values: {} } : { message: 'Amount must be greater than 0', values: {} };
  if (lots && v < Number(MIN_LOTS[category])) return { message: 'Lots must be at least {{min}}', values: { min: MIN_LOTS[category] } };
  return null;
}

/** Units of an order from what the dialog holds: the amount, or lots × contract size. */
export function unitsOf(category: Category, lotState: 'amount' | 'lot', value: number): number {
  if (!Number.isFinite(value) || value <= 0) return 0;
  return lotState === 'lot' ? float.lotsToUnits(category, value) : value;
}

export function leverageFor(plan: Record<string, unknown> | null | undefined, category: Category, instrumentLeverage: number): number {
  return effectiveLeverage(planValue(plan, category, 'leverage'), instrumentLeverage);
}

/** +/- on the amount: by 1, never below 0. */
export function stepAmount(current: number, delta: number): number {
  const next = round((Number.isFinite(current) ? current : 0) + delta);
  return next < 0 ? 0 : next;
}

/** Ranges of the dialog's levels against the live price (the spec's bounds, §5). */
export function dialogLevelRanges(side: Side, bid: number, ask: number) {
  return dialogRanges(side, bid, ask);
}

/** Ranges of an open order's levels against its open rate (the modals, §5). */
export function modalLevelRanges(side: Side, openRate: number) {
  return modifyRanges(side, openRate);
}

/**
 * The side of the live price a level must stay on (the engine refuses the rest: a level the
 * price has reached closes the position at once); null while there is no price.
 */
export function liveLevelRanges(side: Side, price: { bid: number; ask: number } | undefined) {
  return price && price.bid > 0 && price.ask > 0 ? untriggeredRanges(side, price.bid, price.ask) : null;
}

/** The spec's bound as words: the hint under the field, and its error when broken (the domain's, shared with the staff edit). */
export { boundText };

/**
 * Typed input is kept as typed and checked: outside the spec's bound, or on the wrong side of
 * the live price, it is an error shown under the field (and the submit button is disabled).
 */
export function levelProblem(typed: string, bound: Range, live: Range | null): LevelProblem | null {
  const v = typed.trim() === '' ? NaN : Number(typed);
  if (!Number.isFinite(v) || !inRange(v, bound)) return boundText(bound);
  if (live && !inRange(v, live)) {
    return live.max === null
      ? { message: 'Must be above the current price ({{price}}), or the position closes at once', values: { price: live.min } }
      : { message: 'Must be below the current price ({{price}}), or the position closes at once', values: { price: live.max } };
  }
  return null;
}

/** The levels both rules allow: the spec's bound on the untriggered side of the price. */
export function allowedRange(bound: Range, live: Range | null): Range {
  return live ? intersectRanges(bound, live) : bound;
}

/** +/- on a level: by 1, kept inside the range (minus stops at 0, or at the open rate / price in the upper-range case). */
export function stepLevel(current: number, delta: number, range: Range): number {
  let next = round((Number.isFinite(current) ? current : 0) + delta);
  const min = Number(range.min) + (range.minExclusive ? STEP : 0);
  if (next < min) next = round(min);
  if (range.max !== null) {
    const max = Number(range.max) - (range.maxExclusive ? STEP : 0);
    if (next > max) next = round(max);
  }
  return next;
}

/** How far inside the live price a level starts: clear of the next tick, not one step away. */
export const LIVE_MARGIN = 0.01;

/**
 * The starting value of a level when its toggle is switched on: the range's reference end. An
 * included end (the open rate) is the level itself; an excluded one (the live price, which
 * would close the position at once) starts 1 % inside it, or halfway when the range is narrower.
 */
export function initialLevel(range: Range): number {
  const min = Number(range.min);
  if (range.max !== null) {
    const max = Number(range.max);
    if (!range.maxExclusive) return round(max);
    return round(Math.max(max - Math.max(STEP, max * LIVE_MARGIN), (min + max) / 2));
  }
  return round(range.minExclusive ? min + Math.max(STEP, min * LIVE_MARGIN) : min);
}

/** to the inputs' step of 0.00001 */
const round = (n: number) => Number(n.toFixed(5));

/** Floating P/L of a wallet from its open positions summed per instrument (the dashboard loader reads it: trading.server.ts). */
export function floatingFromExposure(
  exposure: (Exposure<number> & { instrument: string })[],
  quotes: Record<string, { bid: number; ask: number } | undefined>,
): number {
  let sum = 0;
  for (const e of exposure) {
    const q = quotes[e.instrument];
    if (q) sum += float.exposurePnl(e, q.bid, q.ask);
  }
  return sum;
}

/** The account summary, live (floats), with the project's formulas: never the spec's double count (README "Free margin"). */
export function accountSummary(balance: number, usedMargin: number, floatingPnl: number) {
  return {
    balance, usedMargin, floatingPnl,
    equity: float.equity(balance, floatingPnl),
    freeMargin: float.freeMargin(balance, usedMargin, floatingPnl),
    marginLevel: float.marginLevel(balance, usedMargin, floatingPnl),
  };
}

/**
 * A pending order's price to start from (docs/specs.md#pending-orders): on its valid side of the
 * live quote, clear of the minimum distance: 1 % away from the quote, or the distance and one step
 * when that is further. Rounded to the instrument's digits (at most the input's 5 decimals).
 */
export function initialPendingPrice(side: Side, type: 'limit' | 'stop', bid: number, ask: number, minDistance: number, digits: number): number {
  const ref = side === 'buy' ? ask : bid;
  if (!(ref > 0)) return 0;
  const below = (side === 'buy') === (type === 'limit');
  const dp = Math.min(digits, 5);
  const unit = 10 ** -dp;
  const away = Math.max(ref * LIVE_MARGIN, minDistance + unit);
  const v = below ? ref - away : ref + away;
  const r = below ? Math.floor(v / unit) * unit : Math.ceil(v / unit) * unit;
  return Number(Math.max(r, unit).toFixed(dp));
}

/** +/- on a pending order's price: one unit of the instrument's last digit (at most the input's 5 decimals), never below it. */
export function stepPrice(current: number, direction: -1 | 1, digits: number): number {
  const dp = Math.min(digits, 5);
  const unit = 10 ** -dp;
  const next = (Number.isFinite(current) ? current : 0) + direction * unit;
  return Number(Math.max(next, unit).toFixed(dp));
}

/** A datetime-local field's text (the reader's own time) as an ISO instant; '' when it is not one. */
export function localToIso(local: string): string {
  if (!local) return '';
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

/** The datetime-local text of an instant in the reader's own time. */
export function isoToLocal(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}
