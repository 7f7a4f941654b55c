// Auto-close comparisons (docs/specs.md#market-hours-and-closing), evaluated on the server. Floats are fine here:
// a trigger decides *whether* to close; the close itself settles in decimals.
import type { Side } from './pricing.ts';
import { float } from './formulas.ts';

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
  const pnl = float.positionPnl(p.side, p.amount, p.open, p.spread, p.exchangeRate, bid, ask);
  if (float.stopOutHit(pnl, p.margin, p.stopout)) return 'stop_out';
  return null;
}
