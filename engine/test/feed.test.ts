// The simulator: deterministic for a seed, obeys market hours, plausible prices; the backfill.
import { describe, expect, test, afterAll } from 'bun:test';
import { Simulator } from '../src/feed/simulator.ts';
import { backfill } from '../src/feed/backfill.ts';
import type { Instrument } from '../src/book/book.ts';
import { db, createInstrument } from './helpers.ts';

const inst = (id: number, name: string, category: Instrument['category'], quote = 'USD'): Instrument =>
  ({ id, name, base: name.split('_')[0], quote, category, tradable: true, leverage: 10, digits: 5 });
const LIST = [inst(1, 'EUR_USD', 'forex'), inst(2, 'USD_JPY', 'forex', 'JPY'), inst(3, 'AAPL', 'stock'), inst(4, 'BTC_USD', 'crypto')];

describe('simulator', () => {
  test('the same seed gives the same ticks; another seed does not', () => {
    const monday = Date.parse('2024-11-25T15:00:00Z');
    const run = (seed: number) => { const s = new Simulator({ instruments: LIST, seed }); return Array.from({ length: 50 }, (_, i) => s.step(monday + i * 500)).flat(); };
    expect(run(7)).toEqual(run(7));
    expect(run(7)).not.toEqual(run(8));
  });

  test('ticks only where the market is open, with ask above bid', () => {
    const s = new Simulator({ instruments: LIST, seed: 1 });
    const saturday = s.step(Date.parse('2024-11-23T12:00:00Z'));
    expect(saturday.map((t) => t.symbol)).toEqual(['BTC_USD']);
    const mondayNight = s.step(Date.parse('2024-11-25T03:00:00Z')); // forex open, NYSE closed
    expect(mondayNight.map((t) => t.symbol).sort()).toEqual(['BTC_USD', 'EUR_USD', 'USD_JPY']);
    for (const t of s.step(Date.parse('2024-11-25T15:00:00Z'))) expect(t.ask).toBeGreaterThan(t.bid);
  });

  test('a random walk with category-typical moves', () => {
    const s = new Simulator({ instruments: LIST, seed: 3, ticksPerSecond: 2 });
    const t0 = Date.parse('2024-11-25T15:00:00Z');
    const last: Record<string, number> = {};
    for (let i = 0; i < 7200; i++) for (const t of s.step(t0 + i * 500)) last[t.symbol] = t.bid; // one hour
    expect(Math.abs(last.EUR_USD / 1.08 - 1)).toBeLessThan(0.02);
    expect(Math.abs(last.USD_JPY / 150 - 1)).toBeLessThan(0.02);
    expect(last.BTC_USD).toBeGreaterThan(0);
  });
});

describe('backfill', () => {
  const sql = db(4);
  afterAll(() => sql.end());
  test('a year of daily and two days of minute candles, once', async () => {
    const a = await createInstrument(sql, { category: 'crypto' });
    const list = [{ ...inst(a.id, a.name, 'crypto') }];
    const n = await backfill(sql, list, new Map([[a.name, 500]]), { seed: 1 });
    expect(n).toBe(366 + 48 + 2880);
    const counts = await sql<{ interval: string; n: number }[]>`
      SELECT interval::text, count(*)::int AS n FROM candles WHERE instrument_id = ${a.id} GROUP BY 1 ORDER BY 1`;
    expect(Object.fromEntries(counts.map((c) => [c.interval, c.n]))).toEqual({ '1D': 366, '1h': 48, '1m': 2880 });
    const [last] = await sql`SELECT close FROM candles WHERE instrument_id = ${a.id} AND interval = '1D' ORDER BY ts DESC LIMIT 1`;
    expect(Number(last.close)).toBe(500);
    expect(await backfill(sql, list, new Map([[a.name, 500]]))).toBe(0);
  });
});

describe('book conversion rates', () => {
  test('live quotes first, the currency API only for what no quote covers', async () => {
    const { Book } = await import('../src/book/book.ts');
    const { dec } = await import('../src/domain/index.ts');
    const book = new Book();
    book.setInstruments([{ id: 1, name: 'EUR_USD', base: 'EUR', quote: 'USD', category: 'forex', tradable: true, leverage: 100, digits: 5 }]);
    book.apply({ symbol: 'EUR_USD', bid: 1.1, ask: 1.1002, ts: Date.now() });
    const asked: string[] = [];
    book.setFallbackRate((f, t) => { asked.push(`${f}->${t}`); return f === 'USD' && t === 'AED' ? dec('3.6725') : undefined; });
    expect(book.rate('EUR', 'USD')!.toNumber()).toBeCloseTo(1.1001, 6);
    expect(book.rate('USD', 'AED')!.toString()).toBe('3.6725');
    expect(book.rate('USD', 'XYZ')).toBeUndefined();
    expect(asked).toEqual(['USD->AED', 'USD->XYZ']);
  });
});

describe('book closeout prices', () => {
  test("a provider's closeout prices are kept, else bid and ask stand in", async () => {
    const { Book } = await import('../src/book/book.ts');
    const book = new Book();
    book.setInstruments([{ id: 1, name: 'EUR_USD', base: 'EUR', quote: 'USD', category: 'forex', tradable: true, leverage: 100, digits: 5 }]);
    expect(book.apply({ symbol: 'EUR_USD', bid: 1.1, ask: 1.1002, ts: 1 })).toMatchObject({ closeoutBid: 1.1, closeoutAsk: 1.1002 });
    expect(book.apply({ symbol: 'EUR_USD', bid: 1.1, ask: 1.1002, ts: 2, closeoutBid: 1.0999, closeoutAsk: 1.1003 }))
      .toMatchObject({ closeoutBid: 1.0999, closeoutAsk: 1.1003, prevBid: 1.1 });
  });
});
