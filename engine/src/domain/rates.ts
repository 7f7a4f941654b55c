// Conversion rates from live FX quotes: direct, inverse, or crossed through USD.
import { Decimal, dec } from './money.ts';

/** Mid price of a pair named BASE_QUOTE, or undefined if not quoted. */
export type MidLookup = (pair: string) => Decimal | undefined;

/**
 * How many `to` units one `from` unit buys. An order's exchange_rate is
 * conversionRate(balanceCurrency, quote): dividing a quote-currency amount by it gives the
 * balance currency.
 */
export function conversionRate(from: string, to: string, mid: MidLookup): Decimal | undefined {
  from = from.toUpperCase(); to = to.toUpperCase();
  if (from === to) return dec(1);
  const direct = mid(`${from}_${to}`);
  if (direct && direct.gt(0)) return direct;
  const inverse = mid(`${to}_${from}`);
  if (inverse && inverse.gt(0)) return dec(1).div(inverse);
  if (from !== 'USD' && to !== 'USD') {
    const a = conversionRate(from, 'USD', mid);
    const b = conversionRate('USD', to, mid);
    if (a && b) return a.times(b);
  }
  return undefined;
}
