// Partial close and trailing stop rules (docs/specs.md "Orders"), pure: the engine's commands and
// the evaluator use them, and web imports them for the dialogs' previews and messages.
import { dec, money, type Num } from './money.ts';
import { MIN_LOTS, pipSize, type Category, type Side } from './pricing.ts';
import { exact } from './formulas.ts';

/** The step of a partial close in lots, per category: the micro lot, as the smallest order (MIN_LOTS). */
export const LOT_STEP: Record<Category, string> = { ...MIN_LOTS };

/**
 * A part's share of a position's spread cost or margin: total × part / whole, to 8 decimals (the
 * columns' scale). SQL copy: part_share() (migrations/*_partial-close-trailing.sql); the rest
 * keeps total − share, so a position cut in parts costs what it cost whole.
 */
export const partShare = (total: Num, part: Num, whole: Num) => money(dec(total).times(part).div(whole));

export interface PartialPosition { category: Category; trade_amount: string; lots: string | null; spread: string; margin_used: string }

/** Every refusal partialSplit and the trailing distance can answer, as i18n keys (the web's key list takes them). */
export const DEPTH_MESSAGES = [
  'Amount must be greater than 0', 'Lots must be greater than 0', 'Lots must be a multiple of {{step}}',
  "Lots must be less than the position's {{max}}", "Amount must be less than the position's {{max}}",
  'The lots left open must be at least {{min}}', 'Trailing distance must be at least {{min}}',
] as const;

export type PartialSplit =
  | { ok: true; amount: string; lots: string | null; spread: string; margin: string; rest: { amount: string; lots: string | null; spread: string; margin: string } }
  /** message: in English; key and values: the same as an i18n key (the web's dialog translates it) */
  | { ok: false; message: string; key: string; values: Record<string, string> };

const no = (key: string, values: Record<string, string> = {}) =>
  ({ ok: false as const, key, values, message: key.replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k] ?? '') });

/**
 * What closing `qty` of a position cuts off: lots (on the category's lot step, the rest at least
 * the smallest lot) for a position in lots, else units (the rest more than 0). `qty` is canonical
 * (domain/decimal-input.ts). The whole position is closed by a plain close, never here.
 */
export function partialSplit(p: PartialPosition, qty: string): PartialSplit {
  const q = dec(qty);
  if (!q.isFinite() || q.lte(0)) return no(p.lots === null ? 'Amount must be greater than 0' : 'Lots must be greater than 0');
  let amount: ReturnType<typeof dec>;
  let lots: string | null = null;
  if (p.lots !== null) {
    const step = LOT_STEP[p.category], min = MIN_LOTS[p.category];
    if (!q.mod(step).isZero()) return no('Lots must be a multiple of {{step}}', { step });
    if (q.gte(p.lots)) return no("Lots must be less than the position's {{max}}", { max: dec(p.lots).toFixed() });
    if (dec(p.lots).minus(q).lt(min)) return no('The lots left open must be at least {{min}}', { min });
    lots = q.toFixed();
    amount = exact.lotsToUnits(p.category, q);
  } else {
    if (q.gte(p.trade_amount)) return no("Amount must be less than the position's {{max}}", { max: dec(p.trade_amount).toFixed() });
    amount = q;
  }
  const spread = partShare(p.spread, amount, p.trade_amount), margin = partShare(p.margin_used, amount, p.trade_amount);
  return {
    ok: true, amount: amount.toFixed(), lots, spread: spread.toFixed(8), margin: margin.toFixed(8),
    rest: {
      amount: dec(p.trade_amount).minus(amount).toFixed(), lots: p.lots === null ? null : dec(p.lots).minus(q).toFixed(),
      spread: dec(p.spread).minus(spread).toFixed(8), margin: dec(p.margin_used).minus(margin).toFixed(8),
    },
  };
}

/** The smallest trailing distance of an instrument: its setting, else 10 pips (pipSize). */
export function minTrailingDistance(i: { category: Category; quote: string; digits: number; trailing_min_distance?: string | null }): string {
  if (i.trailing_min_distance) return dec(i.trailing_min_distance).toFixed();
  return dec(pipSize(i)).times(10).toFixed();
}

/**
 * The stop-loss a trailing distance asks for at a quote (docs/specs.md#trailing-stop): behind the
 * side's mark the stop-loss is compared with (a buy's ask, a sell's bid), by the distance; only
 * when it improves on the current stop (a buy's higher, a sell's lower), else null — never back.
 */
export function trailedStop(side: Side, bid: number, ask: number, distance: number, current: number | null): number | null {
  const next = side === 'buy' ? ask - distance : bid + distance;
  if (!(next > 0)) return null;
  if (current === null || current <= 0) return next;
  return (side === 'buy' ? next > current : next < current) ? next : null;
}
