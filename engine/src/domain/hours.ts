// Market hours. Forex, commodities and indices trade Sunday 22:00 to Friday 22:00 UTC; stocks
// the NYSE regular session 9:30–16:00 America/New_York, Monday to Friday (exchange holidays
// are not modelled); crypto always. Pure: Intl does the time-zone work (DST included).
import type { Category } from './pricing.ts';

export type MarketGroup = 'fx' | 'stock' | 'crypto';
export type MarketStatus = Record<MarketGroup, 'open' | 'closed'>;

/** Forex, commodities and indices all follow fx (docs/specs.md#market-hours-and-closing). */
export function marketGroup(category: Category): MarketGroup {
  if (category === 'stock') return 'stock';
  if (category === 'crypto') return 'crypto';
  return 'fx';
}

export function fxOpen(at: Date): boolean {
  const day = at.getUTCDay(); // 0 Sunday
  const minutes = at.getUTCHours() * 60 + at.getUTCMinutes();
  if (day === 6) return false;
  if (day === 0) return minutes >= 22 * 60;
  if (day === 5) return minutes < 22 * 60;
  return true;
}

const nyParts = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York', weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
});

export function nyseOpen(at: Date): boolean {
  let weekday = '', hour = 0, minute = 0;
  for (const p of nyParts.formatToParts(at)) {
    if (p.type === 'weekday') weekday = p.value;
    else if (p.type === 'hour') hour = Number(p.value);
    else if (p.type === 'minute') minute = Number(p.value);
  }
  if (weekday === 'Sat' || weekday === 'Sun') return false;
  const m = hour * 60 + minute;
  return m >= 9 * 60 + 30 && m < 16 * 60;
}

export function groupOpen(group: MarketGroup, at: Date): boolean {
  if (group === 'crypto') return true;
  return group === 'stock' ? nyseOpen(at) : fxOpen(at);
}

export function isMarketOpen(category: Category, at: Date): boolean {
  return groupOpen(marketGroup(category), at);
}

export function marketStatus(at: Date): MarketStatus {
  const s = (g: MarketGroup) => (groupOpen(g, at) ? 'open' : 'closed') as 'open' | 'closed';
  return { fx: s('fx'), stock: s('stock'), crypto: s('crypto') };
}

/**
 * The end of the trading day an order placed at `at` lives in (a pending order's "End of day"
 * expiry, docs/specs.md#pending-orders): crypto the next 00:00 UTC; forex, commodities and
 * indices the next 22:00 UTC (the daily rollover; Friday's is the week's close); stocks the NYSE
 * close (16:00 New York) of the session open at `at`, else of the next one.
 */
export function sessionEnd(category: Category, at: Date): Date {
  const ms = at.getTime();
  const group = marketGroup(category);
  if (group !== 'stock') {
    const d = new Date(ms);
    d.setUTCHours(group === 'crypto' ? 24 : 22, 0, 0, 0);
    if (d.getTime() <= ms) d.setUTCDate(d.getUTCDate() + 1);
    return d;
  }
  // the session opens and closes on half hours: step over them to the first close
  const step = 30 * 60_000;
  let open = nyseOpen(at);
  for (let t = Math.floor(ms / step) * step + step, n = 0; n < 8 * 48; t += step, n++) {
    if (nyseOpen(new Date(t))) open = true;
    else if (open) return new Date(t);
  }
  return new Date(ms + 86_400_000);
}
