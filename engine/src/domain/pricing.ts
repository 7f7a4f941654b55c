// The formulas of docs/specs.md#trading-formulas. Every function takes decimal-compatible values and
// returns a Decimal; callers that only display may call .toNumber().
import { Decimal, dec, type Num } from './money.ts';

export type Side = 'buy' | 'sell';
export type Category = 'forex' | 'commodity' | 'index' | 'stock' | 'crypto';
export const CATEGORIES: readonly Category[] = ['forex', 'commodity', 'index', 'stock', 'crypto'];

/** Default stop-out threshold in percent when the plan has none (§4, §9). */
export const DEFAULT_STOPOUT = 50;

/** Units in one lot per category, used when the category's lot state is 'lot'. */
export const CONTRACT_SIZE: Record<Category, number> = {
  forex: 100_000, commodity: 100, index: 1, stock: 1, crypto: 1,
};

/**
 * The rate an order opens at and is marked against. The spec says "Sell uses the bid, buy the
 * ask" and bounds a buy's take-profit against the ask: the bid/ask spread is charged once,
 * explicitly, through the order's `spread` cost (spread setting × (ask − bid) × amount), so a
 * buy is marked at the same side it opened on. Marking a buy at the bid would charge the
 * spread a second time.
 */
export function markRate(side: Side, bid: Num, ask: Num): Decimal {
  return dec(side === 'buy' ? ask : bid);
}
export function markRateF(side: Side, bid: number, ask: number): number {
  return side === 'buy' ? ask : bid;
}

/** Leverage from the user's plan for the category, else the instrument's; 0 or none means 1:1. */
export function effectiveLeverage(planLeverage: number | null | undefined, instrumentLeverage: number | null | undefined): number {
  if (planLeverage && planLeverage > 0) return planLeverage;
  if (instrumentLeverage && instrumentLeverage > 0) return instrumentLeverage;
  return 1;
}

/**
 * Margin required = price × amount / leverage / conversion rate, in the balance currency.
 * `conversionRate` is quote-currency units per one balance-currency unit (1 when they match).
 */
export function marginRequired(price: Num, amount: Num, leverage: Num, conversionRate: Num = 1): Decimal {
  return dec(price).times(amount).div(leverage).div(conversionRate);
}

/** Pip value = (0.01 if quote is JPY, else 0.0001) × amount / rate. */
export function pipValue(quote: string, amount: Num, rate: Num): Decimal {
  const pip = quote.toUpperCase() === 'JPY' ? '0.01' : '0.0001';
  return dec(pip).times(amount).div(rate);
}

/** Spread cost = (ask − bid) × spread setting value × amount, in the quote currency. */
export function spreadCost(bid: Num, ask: Num, spreadSetting: Num, amount: Num): Decimal {
  return dec(ask).minus(bid).times(spreadSetting).times(amount);
}

/**
 * Order profit/loss in the balance currency:
 * buy  = (amount × (current − open) − spread) / exchange_rate
 * sell = (amount × (open − current) − spread) / exchange_rate
 */
export function orderPnl(side: Side, amount: Num, open: Num, current: Num, spread: Num, exchangeRate: Num = 1): Decimal {
  const move = side === 'buy' ? dec(current).minus(open) : dec(open).minus(current);
  return move.times(amount).minus(spread).div(exchangeRate);
}

/** The same formula in floats, for live display and trigger comparison only. */
export function orderPnlF(side: Side, amount: number, open: number, current: number, spread: number, exchangeRate = 1): number {
  const move = side === 'buy' ? current - open : open - current;
  return (amount * move - spread) / exchangeRate;
}

/**
 * Estimated P/L of the dialog at a target level (a take-profit or stop-loss):
 * (amount × (level − entry) − spread cost) / rate for a buy, the move reversed for a sell.
 */
export function estimatedPnl(side: Side, amount: Num, entry: Num, level: Num, spread: Num, rate: Num = 1): Decimal {
  return orderPnl(side, amount, entry, level, spread, rate);
}

/** Pricing-plan value for a category: {category}_leverage / {category}_stopout. */
export function planValue(plan: Record<string, unknown> | null | undefined, category: Category, what: 'leverage' | 'stopout'): number | null {
  const v = plan?.[`${category}_${what}`];
  if (v === null || v === undefined || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}
