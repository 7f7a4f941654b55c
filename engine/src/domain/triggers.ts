// Auto-close comparisons (docs/specs.md#market-hours-and-closing), evaluated on the server. Floats are fine here:
// a trigger decides *whether* to close; the close itself settles in decimals.
import type { Side } from './pricing.ts';

export type CloseReason = 'manual' | 'tp' | 'sl' | 'stop_out' | 'zero_equity' | 'admin';

/** Buy: ask ≥ take-profit. Sell: bid ≤ take-profit. Only set (> 0) levels are checked. */
export function takeProfitHit(side: Side, bid: number, ask: number, tp: number | null | undefined): boolean {
  if (!tp || tp <= 0) return false;
  return side === 'buy' ? ask >= tp : bid <= tp;
}

/** Buy: ask ≤ stop-loss. Sell: bid ≥ stop-loss. */
export function stopLossHit(side: Side, bid: number, ask: number, sl: number | null | undefined): boolean {
  if (!sl || sl <= 0) return false;
  return side === 'buy' ? ask <= sl : bid >= sl;
}

/** Per-position stop-out: floating P/L ≤ −stopout % of the position's margin. */
export function stopOutHit(floatingPnl: number, margin: number, stopoutPercent: number): boolean {
  if (margin <= 0) return false;
  return floatingPnl <= -(stopoutPercent / 100) * margin;
}

/**
 * The price at which a position reaches its stop-out: solving the P/L formula for the current
 * rate. Buy: ask ≤ open + (spread − s·m·xr) / amount. Sell: bid ≥ open − (spread − s·m·xr) / amount.
 * The exchange rate is fixed at open, so the level is a constant the trigger index can sort.
 */
export function stopOutLevel(side: Side, amount: number, open: number, spread: number, exchangeRate: number, margin: number, stopoutPercent: number): number {
  const allowed = (stopoutPercent / 100) * margin * exchangeRate; // loss in quote currency
  const shift = (spread - allowed) / amount;
  return side === 'buy' ? open + shift : open - shift;
}

/** Account rule: equity ≤ 0 closes every position of the balance. */
export function zeroEquityHit(equity: number): boolean {
  return equity <= 0;
}

/** Which automatic reason, if any, closes a position at this quote (tp before sl before stop-out). */
export function autoCloseReason(
  p: { side: Side; amount: number; open: number; spread: number; exchangeRate: number; margin: number; tp?: number | null; sl?: number | null; stopout: number },
  bid: number, ask: number,
): CloseReason | null {
  if (takeProfitHit(p.side, bid, ask, p.tp)) return 'tp';
  if (stopLossHit(p.side, bid, ask, p.sl)) return 'sl';
  const current = p.side === 'buy' ? ask : bid;
  const move = p.side === 'buy' ? current - p.open : p.open - current;
  const pnl = (p.amount * move - p.spread) / p.exchangeRate;
  if (stopOutHit(pnl, p.margin, p.stopout)) return 'stop_out';
  return null;
}
