// Spreads and lot states reach a running engine without a restart (migration catalog): a change
// NOTIFYs engine_cache { kind: 'settings' } and the engine drops its cached place contexts, so
// the next order is priced with the new spread (not merely refused as stale and retried).
// The quotes the engine saves to instruments every few seconds notify nothing.
import { describe, expect, test, beforeAll, afterAll } from 'bun:test';
import { db, createUser, within, cryptoEngine, notifyFence, type TestEngine, type TestInstrument } from './helpers.ts';

const sql = db(10);
let E: TestEngine, BTC: TestInstrument;
beforeAll(async () => ({ E, BTC } = await cryptoEngine(sql)));
afterAll(async () => { await E.stop(); await sql.end(); });

/** Runs fn with the crypto spread row as given, then puts the row back as it was. */
async function withCryptoSpread(value: string, fn: () => Promise<void>) {
  const [before] = await sql<{ value: string }[]>`SELECT value::text AS value FROM spreads WHERE category = 'crypto'`;
  try {
    await sql`INSERT INTO spreads (category, value) VALUES ('crypto', ${value}) ON CONFLICT (category) DO UPDATE SET value = excluded.value`;
    await fn();
  } finally {
    if (before) await sql`UPDATE spreads SET value = ${before.value} WHERE category = 'crypto'`;
    else await sql`DELETE FROM spreads WHERE category = 'crypto'`;
  }
}

describe('spreads and lot states', () => {
  test('a spread change drops the cached place contexts and the next order pays the new spread', async () => {
    await withCryptoSpread('1', async () => {
      const u = await createUser(sql, { deposit: '10000' });
      const key = `${u.userId}::${BTC.name}`;
      const body = { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 2 };
      const first = await E.call('POST', '/orders', body);
      // (ask − bid) × spread × amount = 1 × 1 × 2
      expect(first.body.order.spread).toBe('2.00000000');
      expect(E.core.orders.placeCache?.get(key)).toBeDefined();

      const changes = E.core.cacheChanges;
      await sql`UPDATE spreads SET value = 3 WHERE category = 'crypto'`;
      await within(1000, () => E.core.cacheChanges > changes);
      expect(E.core.orders.placeCache?.get(key)).toBeUndefined();
      const second = await E.call('POST', '/orders', body);
      expect(second.body.order.spread).toBe('6.00000000');
    });
  });

  test('a lot state change notifies the engine too', async () => {
    const changes = E.core.cacheChanges;
    // an update that changes nothing still runs the statement trigger: no site-wide value moves
    await sql`UPDATE lot_settings SET state = state WHERE category = 'crypto'`;
    await sql`INSERT INTO lot_settings (category, state) VALUES ('crypto', 'amount') ON CONFLICT (category) DO NOTHING`;
    await within(1000, () => E.core.cacheChanges > changes);
  });

  test("the engine's saved quotes notify nothing; a tradable edit does", async () => {
    // this instrument's notifications (the connection also hears the engine's and earlier tests')
    const got: string[] = [];
    const listener = await sql.listen('engine_cache', (p) => { if (JSON.parse(p).id === BTC.id) got.push(p); });
    const { fence, close } = await notifyFence(sql); // on the same listening connection
    try {
      await sql`UPDATE instruments SET bids = 99, asks = 100, updated_at = now() WHERE id = ${BTC.id}`;
      await E.quote(BTC.name, 100, 101);
      await E.core.flush(); // what the engine's timer does every few seconds
      await sql`UPDATE instruments SET alias = 'Bitcoin test' WHERE id = ${BTC.id}`;
      await fence();
      expect(got).toEqual([]);
      await sql`UPDATE instruments SET tradable = true, leverage = leverage WHERE id = ${BTC.id}`;
      await fence();
      expect(got).toEqual([]); // nothing the engine reads changed
      await sql`UPDATE instruments SET leverage = 11 WHERE id = ${BTC.id}`;
      await within(1000, () => got.length === 1);
      expect(JSON.parse(got[0])).toEqual({ kind: 'instrument', id: BTC.id, op: 'update' });
      await within(1000, () => E.core.book.byId.get(BTC.id)?.leverage === 11);
    } finally {
      await sql`UPDATE instruments SET leverage = 10 WHERE id = ${BTC.id}`;
      await listener.unlisten();
      await close();
    }
  });
});
