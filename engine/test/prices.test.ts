// The freshness rule: a price fills, closes and triggers only when a feed sent it after this
// process started (and, with PRICE_MAX_AGE_MS, recently). Book.tradable is the one rule.
import { describe, expect, test } from 'bun:test';
import { Book, type Instrument } from '../src/book/book.ts';
import { RiskEvaluator } from '../src/risk/evaluator.ts';
import { loadConfig } from '../src/config.ts';

const inst = (id: number, name: string): Instrument => ({ id, name, base: name.slice(0, 3), quote: 'USD', category: 'crypto', tradable: true, leverage: 1, digits: 2 });

function book(maxAgeMs = 0) {
  let now = 1_000_000;
  const b = new Book(undefined, { maxAgeMs, clock: () => now });
  b.setInstruments([inst(1, 'AAA_USD'), inst(2, 'USD_CHF')]);
  return { b, advance: (ms: number) => { now += ms; } };
}

describe('Book.tradable', () => {
  test('a saved quote is shown, marked stale, and never tradable', () => {
    const { b } = book();
    b.seed({ name: 'AAA_USD', bid: 110, ask: 110 });
    expect(b.quote('AAA_USD')).toMatchObject({ bid: 110, ask: 110, stale: true });
    expect(b.tradable('AAA_USD')).toBeUndefined();
    expect(b.tradableById(1)).toBeUndefined();
    expect(b.ticks).toBe(0);
  });

  test('a feed tick after start is tradable; a later saved quote never replaces it', () => {
    const { b } = book();
    b.seed({ name: 'AAA_USD', bid: 110, ask: 110 });
    b.apply({ symbol: 'AAA_USD', bid: 120, ask: 121, ts: 1 });
    expect(b.tradable('AAA_USD')).toMatchObject({ bid: 120, ask: 121, prevBid: 110 });
    expect(b.tradable('AAA_USD')?.stale).toBeUndefined();
    b.seed({ name: 'AAA_USD', bid: 100, ask: 100 });
    expect(b.tradable('AAA_USD')).toMatchObject({ bid: 120 });
  });

  test('with a maximum age, a feed quote stops being tradable once older', () => {
    const { b, advance } = book(5000);
    b.apply({ symbol: 'AAA_USD', bid: 120, ask: 121, ts: 1 });
    advance(5000);
    expect(b.tradable('AAA_USD')).toBeDefined();
    advance(1);
    expect(b.tradable('AAA_USD')).toBeUndefined();
    expect(b.quote('AAA_USD')).toMatchObject({ bid: 120 }); // still shown
    b.apply({ symbol: 'AAA_USD', bid: 122, ask: 123, ts: 2 });
    expect(b.tradable('AAA_USD')).toMatchObject({ bid: 122 });
  });

  test('conversion rates for a fill come from fresh quotes only; display may use a saved one', () => {
    const { b } = book();
    b.seed({ name: 'USD_CHF', bid: 0.9, ask: 0.9 });
    expect(b.rate('USD', 'CHF')).toBeUndefined();
    expect(b.rate('USD', 'CHF', { stale: true })?.toString()).toBe('0.9');
    b.apply({ symbol: 'USD_CHF', bid: 0.8, ask: 0.8, ts: 1 });
    expect(b.rate('USD', 'CHF')?.toString()).toBe('0.8');
  });

  test('PRICE_MAX_AGE_MS: default 0 (no age limit), a non-negative integer', () => {
    const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x' };
    expect(loadConfig(base).PRICE_MAX_AGE_MS).toBe(0);
    expect(loadConfig({ ...base, PRICE_MAX_AGE_MS: '30000' }).PRICE_MAX_AGE_MS).toBe(30000);
    expect(() => loadConfig({ ...base, PRICE_MAX_AGE_MS: '-1' })).toThrow(/PRICE_MAX_AGE_MS/);
  });
});

describe('risk evaluator without a fresh price', () => {
  test('a position added while its price is not fresh is not evaluated against it', () => {
    let fresh = false;
    const r = new RiskEvaluator(() => fresh);
    r.setQuote(1, 110, 110); // an old price the evaluator still holds
    r.setBalance(1, 10_000);
    const out = r.addPosition({ id: 1, accountId: 1, instrumentId: 1, side: 'buy', amount: 1, open: 120, spread: 0, exchangeRate: 1, margin: 120, tp: null, sl: 115, stopout: 50 });
    expect(out).toEqual([]);
    fresh = true;
    expect(r.onTick(1, 114, 114).map((c) => c.reason)).toEqual(['sl']);
  });

  test('zero equity waits for every instrument of the account to have a fresh price, then acts', () => {
    const fresh = new Set<number>([1]);
    const r = new RiskEvaluator((id) => fresh.has(id));
    r.setQuote(1, 100, 100);
    r.setBalance(7, 100);
    // a big winner on instrument 2 (no fresh price yet) and a loser on 1
    expect(r.addPosition({ id: 1, accountId: 7, instrumentId: 1, side: 'buy', amount: 10, open: 100, spread: 0, exchangeRate: 1, margin: 0, tp: null, sl: null, stopout: 50 })).toEqual([]);
    expect(r.addPosition({ id: 2, accountId: 7, instrumentId: 2, side: 'buy', amount: 10, open: 100, spread: 0, exchangeRate: 1, margin: 0, tp: null, sl: null, stopout: 50 })).toEqual([]);
    // without instrument 2's price the equity is unknown: a loss of 150 on 1 closes nothing
    expect(r.onTick(1, 85, 85)).toEqual([]);
    // instrument 2's first fresh tick: equity = 100 − 150 + 0 ≤ 0 → zero equity, both positions
    fresh.add(2);
    expect(r.onTick(2, 100, 100).map((c) => [c.positionId, c.reason]).sort()).toEqual([[1, 'zero_equity'], [2, 'zero_equity']]);
  });

  test('the same account with a winner elsewhere is kept open once that price is known', () => {
    const fresh = new Set<number>([1]);
    const r = new RiskEvaluator((id) => fresh.has(id));
    r.setQuote(1, 100, 100);
    r.setBalance(7, 100);
    r.addPosition({ id: 1, accountId: 7, instrumentId: 1, side: 'buy', amount: 10, open: 100, spread: 0, exchangeRate: 1, margin: 0, tp: null, sl: null, stopout: 50 });
    r.addPosition({ id: 2, accountId: 7, instrumentId: 2, side: 'buy', amount: 10, open: 100, spread: 0, exchangeRate: 1, margin: 0, tp: null, sl: null, stopout: 50 });
    expect(r.onTick(1, 85, 85)).toEqual([]);
    fresh.add(2);
    expect(r.onTick(2, 120, 120)).toEqual([]); // equity 100 − 150 + 200 = 150
    expect(r.equity(7)).toBeCloseTo(150, 9);
    expect(r.onTick(1, 71, 71)).toEqual([]); // 100 − 290 + 200 = 10
    expect(r.onTick(1, 69, 69).map((c) => c.reason)).toEqual(['zero_equity', 'zero_equity']); // 100 − 310 + 200 ≤ 0
  });
});
