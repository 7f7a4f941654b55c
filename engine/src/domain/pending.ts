// Where a pending order's price may be (docs/specs.md#pending-orders), against the live quote and
// the instrument's minimum distance: the engine's refusal and the order dialog's hint are this
// one rule. A Buy Limit at or below ask − distance, a Buy Stop at or above ask + distance, a Sell
// Limit at or above bid + distance, a Sell Stop at or below bid − distance, and never at the
// quote itself (it would fill at once: that is a market order). Pure.
import { dec, type Num } from './money.ts';

export type PendingType = 'limit' | 'stop';

/** Whether the price must be below the quote (a Buy Limit, a Sell Stop) or above it. */
export const pendingBelow = (side: 'buy' | 'sell', type: PendingType) => (side === 'buy') === (type === 'limit');

/** The quote a pending order is compared with and fills at: a buy's ask, a sell's bid. */
export const pendingQuote = (side: 'buy' | 'sell', bid: Num, ask: Num) => (side === 'buy' ? ask : bid);

/** The price's bound: the side's quote moved by the minimum distance, toward the order's side. */
export function pendingBound(side: 'buy' | 'sell', type: PendingType, bid: Num, ask: Num, minDistance: Num) {
  const ref = dec(pendingQuote(side, bid, ask)), d = dec(minDistance);
  return { ref, distance: d, bound: pendingBelow(side, type) ? ref.minus(d) : ref.plus(d), below: pendingBelow(side, type) };
}

/** The message key and values when the price is not on its side of the quote by the distance; null when it is. */
export function pendingPriceProblem(side: 'buy' | 'sell', type: PendingType, price: Num, bid: Num, ask: Num, minDistance: Num):
  { message: string; values: Record<string, string> } | null {
  const { ref, distance, bound, below } = pendingBound(side, type, bid, ask, minDistance);
  const p = dec(price);
  if (below ? p.lt(ref) && p.lte(bound) : p.gt(ref) && p.gte(bound)) return null;
  const name = `${side === 'buy' ? 'Buy' : 'Sell'} ${type === 'limit' ? 'Limit' : 'Stop'}`;
  const quote = side === 'buy' ? 'ask' : 'bid';
  if (distance.isZero()) {
    return { message: `${name} price must be ${below ? 'below' : 'above'} the ${quote} ({{price}})`, values: { price: ref.toFixed() } };
  }
  return {
    message: `${name} price must be ${below ? 'at or below' : 'at or above'} {{bound}} (the ${quote} ({{price}}) ${below ? '−' : '+'} the minimum distance {{distance}})`,
    values: { bound: bound.toFixed(), price: ref.toFixed(), distance: distance.toFixed() },
  };
}

/** Every message pendingPriceProblem can answer (the web's key list holds them). */
export const PENDING_PRICE_MESSAGES: string[] = (['buy', 'sell'] as const).flatMap((side) => (['limit', 'stop'] as const).flatMap((type) => {
  const name = `${side === 'buy' ? 'Buy' : 'Sell'} ${type === 'limit' ? 'Limit' : 'Stop'}`;
  const below = pendingBelow(side, type), quote = side === 'buy' ? 'ask' : 'bid';
  return [
    `${name} price must be ${below ? 'below' : 'above'} the ${quote} ({{price}})`,
    `${name} price must be ${below ? 'at or below' : 'at or above'} {{bound}} (the ${quote} ({{price}}) ${below ? '−' : '+'} the minimum distance {{distance}})`,
  ];
}));

/** A problem's message with its values filled in (the engine's English refusal). */
export const fillValues = (m: { message: string; values: Record<string, string> }) =>
  m.message.replace(/\{\{(\w+)\}\}/g, (_, k: string) => m.values[k] ?? '');
