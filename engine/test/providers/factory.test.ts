// createProviders: which provider serves which category, from the configured keys.
import { describe, expect, test } from 'bun:test';
import { createProviders, type InstrumentsByCategory } from '../../src/feed/providers/index.ts';
import { CurrencyApi } from '../../src/feed/providers/currency.ts';
import { EodRestPoller, EodSocket } from '../../src/feed/providers/eod.ts';
import { OandaStream } from '../../src/feed/providers/oanda.ts';
import { PolygonSocket } from '../../src/feed/providers/polygon.ts';

const all: InstrumentsByCategory = {
  forex: ['EUR_USD', 'USD_JPY'],
  commodity: ['XAU_USD', 'XAG_USD', 'BCO_USD'],
  index: ['SPX500_USD'],
  stock: ['AAPL_USD', 'MSFT_USD'],
  crypto: ['BTC_USD', 'ETH_USD'],
};
const names = (plan: ReturnType<typeof createProviders>) => plan.providers.map((p) => p.name);

describe('createProviders', () => {
  test('no keys: nothing real, everything uncovered (the simulator serves it)', () => {
    const plan = createProviders({ problems: [] }, all);
    expect(plan.providers).toEqual([]);
    expect(plan.currency).toBeNull();
    expect(plan.uncovered).toEqual(['EUR_USD', 'USD_JPY', 'XAU_USD', 'XAG_USD', 'BCO_USD', 'SPX500_USD', 'AAPL_USD', 'MSFT_USD', 'BTC_USD', 'ETH_USD']);
  });

  test('every key: OANDA for forex, commodities and indices; Polygon crypto; EOD stocks', () => {
    const plan = createProviders({
      problems: [], oanda: { accountId: 'a', apiKey: 'k', mode: 'fxpractice' }, polygon: { apiKey: 'p' },
      eod: { apiKey: 'e' }, currency: { apiKey: 'c', remaining: null, limit: null },
    }, all);
    expect(names(plan)).toEqual(['oanda', 'polygon-crypto', 'eod']);
    expect(plan.providers[0]).toBeInstanceOf(OandaStream);
    expect(plan.providers[0].status()).toMatchObject({ instruments: ['EUR_USD', 'USD_JPY', 'XAU_USD', 'XAG_USD', 'BCO_USD', 'SPX500_USD'] });
    expect(plan.providers[1]).toBeInstanceOf(PolygonSocket);
    expect(plan.providers[2]).toBeInstanceOf(EodSocket);
    expect(plan.uncovered).toEqual([]);
    expect(plan.assignment.get('XAU_USD')).toBe('oanda');
    expect(plan.assignment.get('BTC_USD')).toBe('polygon-crypto');
    expect(plan.assignment.get('AAPL_USD')).toBe('eod');
    expect(plan.currency).toBeInstanceOf(CurrencyApi);
  });

  test('Polygon only: forex and precious metals on Polygon forex; other commodities, indices and stocks uncovered', () => {
    const plan = createProviders({ problems: [], polygon: { apiKey: 'p' } }, all);
    expect(names(plan)).toEqual(['polygon-forex', 'polygon-crypto']);
    expect(plan.providers[0].status()).toMatchObject({ api: 'polygonForex', instruments: ['EUR_USD', 'USD_JPY', 'XAU_USD', 'XAG_USD'] });
    expect(plan.uncovered).toEqual(['BCO_USD', 'SPX500_USD', 'AAPL_USD', 'MSFT_USD']);
  });

  test('EOD REST fallback on request; empty categories start nothing', () => {
    const plan = createProviders({ problems: [], eod: { apiKey: 'e' }, polygon: { apiKey: 'p' } }, { stock: ['AAPL_USD'] }, { eodRest: true });
    expect(names(plan)).toEqual(['eod-rest']);
    expect(plan.providers[0]).toBeInstanceOf(EodRestPoller);
  });
});
