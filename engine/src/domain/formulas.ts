// Every trading figure the platform computes, written once (docs/specs.md#trading-formulas, with the
// project's account-summary decision in README "Free margin") and instantiated twice:
//   exact — decimal.js, for what is stored, settled or checked against the server;
//   float — numbers, for live display and trigger comparison only.
// PostgreSQL keeps copies of the formulas its locks need (migrations/*_trading-formulas.sql:
// order_mark_rate, order_pnl, position_pnl, order_exposure, free_margin, margin_refusal, margin_required); engine/test/parity.test.ts runs
// one table of cases through both and requires the same numeric to the 8th decimal.
import type { Arith } from './arith.ts';
import { EXACT, FLOAT } from './arith.ts';
import { CONTRACT_SIZE, type Category, type Side } from './pricing.ts';

export type MarginRefusal = 'insufficient_balance' | 'insufficient_free_margin';

/**
 * The order P/L as a linear function of the quote, in the balance currency:
 * P/L = long × ask − short × bid − offset. A buy has long = amount / xr and offset =
 * (amount × open + spread) / xr; a sell has short = amount / xr and offset =
 * (spread − amount × open) / xr. Being linear, the sum over a wallet's positions on one
 * instrument is that instrument's exposure: one term per instrument, whatever the positions.
 */
export interface Exposure<T> { long: T; short: T; offset: T }

export function formulas<T, In>(A: Arith<T, In>) {
  const zero = A.num(0), one = A.num(1), hundred = A.num(100);

  /** "Sell uses the bid, buy the ask" (§9): the rate an order opens at and is marked against. */
  const markRate = (side: Side, bid: In, ask: In): T => A.of(side === 'buy' ? ask : bid);

  /** Units of an order given in lots: lots × the category's contract size. */
  const lotsToUnits = (category: Category, lots: In): T => A.mul(A.of(lots), A.num(CONTRACT_SIZE[category]));

  /** §9 Margin required = price × amount / leverage / conversion rate (quote units per balance unit). */
  const marginRequired = (price: In, amount: In, leverage: In, conversionRate?: In): T =>
    A.div(A.div(A.mul(A.of(price), A.of(amount)), A.of(leverage)), conversionRate === undefined ? one : A.of(conversionRate));

  /** Pip value = the instrument's pip size (pricing.ts pipSize) × amount / rate (docs/specs.md#trading-formulas). */
  const pipValue = (pip: In, amount: In, rate: In): T => A.div(A.mul(A.of(pip), A.of(amount)), A.of(rate));

  /** §9 Spread cost = (ask − bid) × spread setting value × amount, in the quote currency. */
  const spreadCost = (bid: In, ask: In, spreadSetting: In, amount: In): T =>
    A.mul(A.mul(A.sub(A.of(ask), A.of(bid)), A.of(spreadSetting)), A.of(amount));

  /**
   * §9 Order profit/loss in the balance currency:
   * buy = (amount × (current − open) − spread) / exchange_rate, sell = (amount × (open − current) − spread) / exchange_rate.
   * The same formula is the dialog's estimated P/L at a level (§9 "Estimated profit/loss").
   */
  const orderPnl = (side: Side, amount: In, open: In, current: In, spread: In, exchangeRate?: In): T => {
    const move = side === 'buy' ? A.sub(A.of(current), A.of(open)) : A.sub(A.of(open), A.of(current));
    return A.div(A.sub(A.mul(A.of(amount), move), A.of(spread)), exchangeRate === undefined ? one : A.of(exchangeRate));
  };

  /** An open position's P/L at a quote: the order P/L at its side's mark. */
  const positionPnl = (side: Side, amount: In, open: In, spread: In, exchangeRate: In, bid: In, ask: In): T =>
    orderPnl(side, amount, open, side === 'buy' ? ask : bid, spread, exchangeRate);

  /** One position's exposure (see Exposure). */
  const exposure = (side: Side, amount: In, open: In, spread: In, exchangeRate: In): Exposure<T> => {
    const xr = A.of(exchangeRate), units = A.div(A.of(amount), xr), notional = A.mul(A.of(amount), A.of(open));
    return side === 'buy'
      ? { long: units, short: zero, offset: A.div(A.add(notional, A.of(spread)), xr) }
      : { long: zero, short: units, offset: A.div(A.sub(A.of(spread), notional), xr) };
  };

  /** The P/L of an exposure (one position's, or a sum) at a quote: long × ask − short × bid − offset. */
  const exposurePnl = (x: Exposure<T>, bid: T, ask: T): T => A.sub(A.sub(A.mul(x.long, ask), A.mul(x.short, bid)), x.offset);

  /** Equity = balance + floating P/L. */
  const equity = (balance: In, floatingPnl: In): T => A.add(A.of(balance), A.of(floatingPnl));

  /**
   * Free margin = balance + floating P/L − used margin. The spec's account summary counts
   * live P/L twice and its dialog check ignores it; the project uses the conventional
   * definition everywhere (README "Free margin").
   */
  const freeMargin = (balance: In, usedMargin: In, floatingPnl?: In): T =>
    A.sub(floatingPnl === undefined ? A.of(balance) : equity(balance, floatingPnl), A.of(usedMargin));

  /** Margin level = equity / used margin × 100, in percent; null when no margin is used. */
  const marginLevel = (balance: In, usedMargin: In, floatingPnl?: In): T | null => {
    const used = A.of(usedMargin);
    if (A.isZero(used)) return null;
    const eq = floatingPnl === undefined ? A.of(balance) : equity(balance, floatingPnl);
    return A.mul(A.div(eq, used), hundred);
  };

  /**
   * The order dialog's checks (§5), enforced again under the balance lock: margin over the
   * balance is 'Insufficient Balance!', margin over the free margin 'Insufficient Free Margin!'.
   */
  const checkMargin = (required: In, balance: In, usedMargin: In, floatingPnl?: In): MarginRefusal | null => {
    const r = A.of(required);
    if (A.gt(r, A.of(balance))) return 'insufficient_balance';
    if (A.gt(r, freeMargin(balance, usedMargin, floatingPnl))) return 'insufficient_free_margin';
    return null;
  };

  /** Per-position stop-out: floating P/L ≤ −stopout % of the position's margin. */
  const stopOutHit = (floatingPnl: In, margin: In, stopoutPercent: In): boolean => {
    const m = A.of(margin);
    if (A.lte(m, A.num(0))) return false;
    return A.lte(A.of(floatingPnl), A.neg(A.mul(A.div(A.of(stopoutPercent), hundred), m)));
  };

  /**
   * The mark at which a position reaches its stop-out: the order P/L solved for the current
   * rate. Buy: ask ≤ open + (spread − s·m·xr) / amount; sell: bid ≥ open − (spread − s·m·xr) / amount.
   * The exchange rate is fixed at open, so the level is a constant the trigger index can sort.
   */
  const stopOutLevel = (side: Side, amount: In, open: In, spread: In, exchangeRate: In, margin: In, stopoutPercent: In): T => {
    const allowed = A.mul(A.mul(A.div(A.of(stopoutPercent), hundred), A.of(margin)), A.of(exchangeRate)); // loss in quote currency
    const shift = A.div(A.sub(A.of(spread), allowed), A.of(amount));
    return side === 'buy' ? A.add(A.of(open), shift) : A.sub(A.of(open), shift);
  };

  return {
    markRate, lotsToUnits, marginRequired, pipValue, spreadCost, orderPnl, estimatedPnl: orderPnl, positionPnl,
    exposure, exposurePnl, equity, freeMargin, marginLevel, checkMargin, stopOutHit, stopOutLevel,
  };
}

/** Exact decimals: what is stored, settled, or decides a refusal. */
export const exact = formulas(EXACT);
/** Floats: live display and trigger comparison only. */
export const float = formulas(FLOAT);

// The names the code has long used: exact, or float with an F.
export const {
  markRate, marginRequired, pipValue, spreadCost, orderPnl, estimatedPnl, equity, freeMargin, marginLevel, checkMargin,
} = exact;
export const markRateF = float.markRate;
export const orderPnlF = float.orderPnl;
export const { stopOutHit, stopOutLevel } = float;
