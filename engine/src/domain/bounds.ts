// Take-profit and stop-loss bounds of client-area.md §5. A value of null or 0 means "not set"
// (the dialog sends null when a toggle is off; the database stores only positive rates).
import { dec, type Num } from './money.ts';
import type { Side } from './pricing.ts';

export type Level = Num | null | undefined;
const isSet = (v: Level) => v !== null && v !== undefined && !dec(v).isZero();

export type BoundError = 'bad_take_profit' | 'bad_stop_loss';

/** [min, max] of a level; max null means unbounded. Both ends inclusive, as the spec says. */
export interface Range { min: string; max: string | null }

/**
 * Order dialog, against the live price: buy take-profit ≥ ask, buy stop-loss in [0, ask];
 * sell take-profit in [0, bid], sell stop-loss ≥ bid.
 */
export function dialogRanges(side: Side, bid: Num, ask: Num): { takeProfit: Range; stopLoss: Range } {
  const ref = dec(side === 'buy' ? ask : bid).toString();
  return side === 'buy'
    ? { takeProfit: { min: ref, max: null }, stopLoss: { min: '0', max: ref } }
    : { takeProfit: { min: '0', max: ref }, stopLoss: { min: ref, max: null } };
}

/**
 * Take-profit / stop-loss modals of an open order, against its open rate: buy stop-loss and
 * sell take-profit in [0, open]; sell stop-loss and buy take-profit ≥ open.
 */
export function modifyRanges(side: Side, openRate: Num): { takeProfit: Range; stopLoss: Range } {
  const ref = dec(openRate).toString();
  return side === 'buy'
    ? { takeProfit: { min: ref, max: null }, stopLoss: { min: '0', max: ref } }
    : { takeProfit: { min: '0', max: ref }, stopLoss: { min: ref, max: null } };
}

export function inRange(value: Num, r: Range): boolean {
  const v = dec(value);
  if (v.isNaN() || v.lt(r.min)) return false;
  return r.max === null || v.lte(r.max);
}

function check(ranges: { takeProfit: Range; stopLoss: Range }, tp: Level, sl: Level): BoundError | null {
  if (isSet(tp) && !inRange(tp!, ranges.takeProfit)) return 'bad_take_profit';
  if (isSet(sl) && !inRange(sl!, ranges.stopLoss)) return 'bad_stop_loss';
  return null;
}

export function checkDialogLevels(side: Side, bid: Num, ask: Num, tp: Level, sl: Level): BoundError | null {
  return check(dialogRanges(side, bid, ask), tp, sl);
}

export function checkModifyLevels(side: Side, openRate: Num, tp: Level, sl: Level): BoundError | null {
  return check(modifyRanges(side, openRate), tp, sl);
}

/** Normalise an incoming level: null/undefined/0 → null, otherwise a decimal string. */
export function levelOrNull(v: Level): string | null {
  return isSet(v) ? dec(v!).toString() : null;
}
