// The one instrument search (shared/instrument-search.ts) over the demo instruments: exact symbol
// and alias first (with or without '/', '_'), then prefixes, then the rest; the fuzzy pass only
// when nothing matched plainly, so 'apple' is never Ripple and 'EUR/USD' never Sugar.
import { describe, expect, test } from 'vitest';
import { searchInstruments } from '~/shared/instrument-search.ts';
import { demoInstruments } from '../../../seeds/instruments.ts';

const names = (q: string) => searchInstruments(demoInstruments, q).map((i) => i.name);

describe('instrument search', () => {
  test.each([
    ['apple', 'AAPL_USD'], ['Apple', 'AAPL_USD'], ['EUR/USD', 'EUR_USD'], ['eur_usd', 'EUR_USD'], ['EURUSD', 'EUR_USD'],
    ['eur usd', 'EUR_USD'], ['bitcoin', 'BTC_USD'], ['bitcon', 'BTC_USD'], ['gold', 'XAU_USD'], ['BTC', 'BTC_USD'], ['aapl', 'AAPL_USD'],
  ])('%s finds %s first', (q, name) => {
    expect(names(q)[0]).toBe(name);
  });

  test("'apple' is Apple only: no fuzzy Ripple", () => {
    expect(names('apple')).toEqual(['AAPL_USD']);
  });

  test("'EUR/USD': the pair, then the other EUR pairs; no SUGAR or DOGE", () => {
    const r = names('EUR/USD');
    expect(r[0]).toBe('EUR_USD');
    expect(r).toContain('EUR_JPY');
    expect(r).not.toContain('SUGAR_USD');
    expect(r).not.toContain('DOGE_USD');
    expect(r.every((n) => n.startsWith('EUR_'))).toBe(true);
  });

  test('exact before prefix before the rest', () => {
    const r = names('eur');
    expect(r.slice(0, 2)).toEqual(['EUR_USD', 'EUR_GBP']); // prefixes of the symbol, in the list's order
    expect(r.indexOf('EU50_EUR')).toBeGreaterThan(r.indexOf('EUR_CAD')); // quoted in EUR: after the prefixes
    const usd = names('usd');
    expect(usd.slice(0, 3)).toEqual(['USD_JPY', 'USD_CHF', 'USD_CAD']);
    expect(usd).toContain('EUR_USD'); // quoted in USD, ranked after the prefixes
  });

  test('no match, and an empty query lists everything', () => {
    expect(names('zzzz')).toEqual([]);
    expect(searchInstruments(demoInstruments, '  ')).toHaveLength(demoInstruments.length);
  });
});
