// /mobile-chart/:symbol takes the common spellings of a symbol, and answers an unknown one with
// a 404 page that says the chart is not available (not an empty black page).
import { afterAll, describe, expect, test } from 'vitest';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { testSql, createUser, sessionFor, get, settle } from '../helpers.ts';
import { findInstrument, symbolKey } from '~/modules/trading/symbol.server.ts';
import { loader } from '~/routes/mobile-chart.$symbol.tsx';

const sql = testSql();
afterAll(() => sql.end());

async function instrument() {
  await sql`INSERT INTO instruments (name, base, quote, category, leverage, digits, bids, asks)
            VALUES ('EUR_USD', 'EUR', 'USD', 'forex', 100, 5, 1.08, 1.0802) ON CONFLICT (name) DO NOTHING`;
}

const load = (symbol: string, cookie: string) =>
  settle(Promise.resolve().then(() => loader({ request: get(`/mobile-chart/${encodeURIComponent(symbol)}`, cookie), params: { symbol }, context: {} } as LoaderFunctionArgs)));

describe('symbol spellings', () => {
  test.each([
    ['EUR_USD', 'EURUSD'], ['EURUSD', 'EURUSD'], ['EUR/USD', 'EURUSD'], ['eur_usd', 'EURUSD'], [' eur-usd ', 'EURUSD'], ['x'.repeat(100), ''], ['', ''],
  ])('%j → key %j', (s, key) => expect(symbolKey(s)).toBe(key));

  test.each(['EUR_USD', 'EURUSD', 'EUR/USD', 'eur_usd', 'eurusd', 'Eur-Usd'])('%s finds EUR_USD', async (s) => {
    await instrument();
    expect(await findInstrument(sql, s)).toMatchObject({ name: 'EUR_USD', label: 'EUR/USD', digits: 5 });
  });

  test.each(['NOPE', 'EURUSDX', "EUR'; --", '%', ''])('%j finds nothing', async (s) => {
    expect(await findInstrument(sql, s)).toBeNull();
  });
});

describe('the mobile chart loader', () => {
  test('EURUSD and EUR/USD open the EUR_USD chart; an unknown symbol is a 404 page, not an empty chart', async () => {
    await instrument();
    const u = await createUser(sql);
    const { cookie } = await sessionFor(sql, u.id);
    for (const s of ['EURUSD', 'EUR/USD', 'eur_usd']) {
      expect(await load(s, cookie)).toEqual({ symbol: 'EUR_USD', label: 'EUR/USD', digits: 5 });
    }
    const unknown = (await load('NOPE', cookie)) as { data: { symbol: string | null }; init: { status: number } };
    expect(unknown.init.status).toBe(404);
    expect(unknown.data.symbol).toBeNull();
  });
});
