// Providers that count in minor units (Stripe): exact conversion between our decimal strings and
// their integers, per the provider's documented list of zero- and three-decimal currencies.
import { dec } from '@broker/engine/domain';

// https://docs.stripe.com/currencies#zero-decimal and #three-decimal
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

export function minorExponent(currency: string): number {
  const c = currency.toUpperCase();
  return ZERO_DECIMAL.has(c) ? 0 : THREE_DECIMAL.has(c) ? 3 : 2;
}

/** '100.50' USD → 10050; null when the amount does not fit the currency's minor unit exactly. */
export function toMinorUnits(amount: string, currency: string): number | null {
  const v = dec(amount).mul(10 ** minorExponent(currency));
  if (!v.isInteger() || v.isNegative() || !v.lte(Number.MAX_SAFE_INTEGER)) return null;
  return v.toNumber();
}

/** 10050 USD → '100.50' (exact). */
export function fromMinorUnits(minor: number, currency: string): string {
  const e = minorExponent(currency);
  return dec(String(minor)).div(10 ** e).toFixed(e);
}
