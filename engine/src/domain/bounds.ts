// Take-profit and stop-loss bounds of docs/specs.md#client-validation. A value of null or 0 means "not set"
// (the dialog sends null when a toggle is off; the database stores only positive rates).
import { dec, type Num } from './money.ts';
import type { Side } from './pricing.ts';

export type Level = Num | null | undefined;
const isSet = (v: Level) => v !== null && v !== undefined && !dec(v).isZero();

export type BoundError = 'bad_take_profit' | 'bad_stop_loss';

/**
 * [min, max] of a level; max null means unbounded. Both ends inclusive, as the spec says,
 * unless an end is marked exclusive (the current price: a level there closes at once).
 */
export interface Range { min: string; max: string | null; minExclusive?: boolean; maxExclusive?: boolean }

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

/**
 * A range as words, for the hint under a level's field and its error when broken: a message key
 * and its values, the ends as decimal strings for the page to format with the instrument's digits.
 */
export function boundText(bound: Range): { message: string; values: Record<string, string> } {
  return bound.max === null ? { message: 'At least {{min}}', values: { min: bound.min } }
    : { message: 'Between {{min}} and {{max}}', values: { min: bound.min, max: bound.max } };
}

export function inRange(value: Num, r: Range): boolean {
  const v = dec(value);
  if (v.isNaN() || (r.minExclusive ? v.lte(r.min) : v.lt(r.min))) return false;
  return r.max === null || (r.maxExclusive ? v.lt(r.max) : v.lte(r.max));
}

/**
 * Levels the current price has not reached (the comparisons of triggers.ts): buy take-profit
 * above the ask and stop-loss below it; sell take-profit below the bid and stop-loss above it.
 * A level outside would close the position on the next tick.
 */
export function untriggeredRanges(side: Side, bid: Num, ask: Num): { takeProfit: Range; stopLoss: Range } {
  const ref = dec(side === 'buy' ? ask : bid).toString();
  const above: Range = { min: ref, max: null, minExclusive: true };
  const below: Range = { min: '0', max: ref, maxExclusive: true };
  return side === 'buy' ? { takeProfit: above, stopLoss: below } : { takeProfit: below, stopLoss: above };
}

/** The levels inside both ranges (the spec's bound and the untriggered one); may be empty. */
export function intersectRanges(a: Range, b: Range): Range {
  const aMin = dec(a.min), bMin = dec(b.min);
  const min = aMin.eq(bMin) ? { min: a.min, minExclusive: !!(a.minExclusive || b.minExclusive) }
    : aMin.gt(bMin) ? { min: a.min, minExclusive: !!a.minExclusive } : { min: b.min, minExclusive: !!b.minExclusive };
  let max: { max: string | null; maxExclusive: boolean };
  if (a.max === null) max = { max: b.max, maxExclusive: !!b.maxExclusive };
  else if (b.max === null) max = { max: a.max, maxExclusive: !!a.maxExclusive };
  else {
    const aMax = dec(a.max), bMax = dec(b.max);
    max = aMax.eq(bMax) ? { max: a.max, maxExclusive: !!(a.maxExclusive || b.maxExclusive) }
      : aMax.lt(bMax) ? { max: a.max, maxExclusive: !!a.maxExclusive } : { max: b.max, maxExclusive: !!b.maxExclusive };
  }
  return { ...min, ...max };
}

/**
 * A take-profit or stop-loss the current price has already reached is refused (place and
 * modify alike): set, it would close the position at once.
 */
export function checkLevelsNotTriggered(side: Side, bid: Num, ask: Num, tp: Level, sl: Level): { code: BoundError; message: string } | null {
  const r = untriggeredRanges(side, bid, ask);
  const price = side === 'buy' ? r.takeProfit.min : r.takeProfit.max!;
  const at = (above: boolean) => `must be ${above ? 'above' : 'below'} the current price (${price}): it would close the position at once`;
  if (isSet(tp) && !inRange(tp!, r.takeProfit)) return { code: 'bad_take_profit', message: `Take profit ${at(side === 'buy')}` };
  if (isSet(sl) && !inRange(sl!, r.stopLoss)) return { code: 'bad_stop_loss', message: `Stop loss ${at(side === 'sell')}` };
  return null;
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
