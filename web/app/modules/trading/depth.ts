// The positions area's partial close and trailing stop, pure (docs/specs.md#partial-close,
// #trailing-stop): what is wrong with a typed quantity or distance, said as an i18n key with its
// values (the engine refuses the same, with the same rules: engine/src/domain/partial.ts).
import { dec, minTrailingDistance, partialSplit, pipSize, type Category } from '@broker/engine/domain';
import { readNumber } from '~/components/ui/number-input.ts';
import type { LevelProblem } from './dialog.ts';

export interface ClosingPosition { category: Category; quote: string; digits: number; amount: string; lots: string | null; spread: string }

/** What the close dialog's quantity asks for: the whole position, part of it (`quantity`, canonical), or a problem. */
export function closeQuantity(typed: string, p: ClosingPosition, locale: string):
  { whole: true } | { whole: false; quantity: string } | { problem: LevelProblem } {
  const lots = p.lots !== null;
  if (typed.trim() === '') return { problem: { message: lots ? 'Enter the lots' : 'Enter an amount', values: {} } };
  const v = readNumber(typed, locale);
  if (v === null || !(Number(v) > 0)) return { problem: { message: lots ? 'Lots must be greater than 0' : 'Amount must be greater than 0', values: {} } };
  if (dec(v).eq(p.lots ?? p.amount)) return { whole: true };
  const split = partialSplit({ category: p.category, trade_amount: p.amount, lots: p.lots, spread: p.spread, margin_used: '0' }, v);
  if (!split.ok) return { problem: { message: split.key, values: split.values } };
  return { whole: false, quantity: v };
}

/** The smallest trailing distance of a position's instrument: its setting, else 10 pips. */
export const trailingMin = (p: { category: Category; quote: string; digits: number; trailingMin?: string | null }) =>
  minTrailingDistance({ ...p, trailing_min_distance: p.trailingMin ?? null });

/** What is wrong with a typed trailing distance; null: fine. */
export function trailingProblem(typed: string, min: string, locale: string): LevelProblem | null {
  if (typed.trim() === '') return { message: 'Enter a trailing distance', values: {} };
  const v = readNumber(typed, locale);
  if (v === null || !(Number(v) > 0)) return { message: 'Trailing distance must be greater than 0', values: {} };
  if (dec(v).lt(min)) return { message: 'Trailing distance must be at least {{min}}', values: { min } };
  return null;
}

/** A distance in pips of the instrument (pipSize); null when it is not a number. */
export function distancePips(typed: string, p: { category: Category; quote: string; digits: number }, locale: string): number | null {
  const v = readNumber(typed, locale);
  if (v === null) return null;
  return dec(v).div(pipSize(p)).toNumber();
}
