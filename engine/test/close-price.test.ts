// Issue 22 §5: a triggered close (take-profit, stop-loss) settles at the price of the tick that
// crossed its level and records that tick, whenever the close statement gets to run. The held-out
// crash run closed a buy with stop-loss 128.668 as 'sl' at 128.979031: after a restart, the first
// fresh tick crossed many levels at once, the closes queued behind the executor's batch limit and
// were then priced at the book's quote of the moment they ran, a later tick back above the level.
// Here the restart is built directly: orders in PostgreSQL, a new core rebuilding them, a crossing
// tick and the tick that goes back ingested before any close statement can finish.
import { describe, expect, test, afterAll } from 'bun:test';
import { db, createUser, createInstrument, engine, uniq, within } from './helpers.ts';
import { Core, TICKS } from '../src/core.ts';
import { MemoryBus, RedisBus } from '../src/bus/index.ts';
import { RiskEvaluator } from '../src/risk/evaluator.ts';
import { placeOrder } from '../src/orders/service.ts';
import { REDIS_URL as REDIS, needsRedis, redisUp } from './redis.ts';

const sql = db(10);
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => { for (const c of cleanup.reverse()) await c().catch(() => {}); await sql.end(); });

describe('a triggered close settles at its crossing tick', () => {
  test('restart burst: stop-losses crossed on the first tick close at that tick, not at a later one', async () => {
    const inst = await createInstrument(sql, { category: 'crypto', leverage: 1 }); // stop-out far away
    // the process that placed the orders, then "dies" (its memory is gone; PostgreSQL keeps the orders)
    const before = await engine(sql);
    await before.quote(inst.name, 130, 130);
    const ids: number[] = [];
    for (let k = 0; k < 6; k++) {
      const u = await createUser(sql, { deposit: '10000' });
      const r = await before.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: inst.name, amount: 1, loss: 128.668 });
      expect(r.status).toBe(201);
      ids.push(r.body.order.id);
    }
    await before.stop();

    // the restarted core: positions rebuilt, no fresh price yet; small batches, one at a time, so
    // the burst of closes waits for the executor as a large one does under load
    const bus = new MemoryBus();
    const core = new Core({ sql, bus, flushMs: 0, closeBatchSize: 2, closeBatchConcurrency: 1 });
    await core.start();
    try {
      expect(core.risk.openPositions).toBeGreaterThanOrEqual(ids.length);
      const crossAt = Date.now() - 50;
      core.ingest({ symbol: inst.name, bid: 128.6, ask: 128.65, ts: crossAt });       // crosses every stop-loss (ask ≤ 128.668)
      core.ingest({ symbol: inst.name, bid: 128.97, ask: 128.979031, ts: crossAt + 1 }); // and back, before a close statement can finish
      await core.executor.idle();
      expect([core.executor.batches, core.executor.batchFailures]).toEqual([3, 0]); // three statements of two closes
      const rows = await sql<{ id: bigint; close_reason: string | null; close_rate: string | null; trigger_bid: string | null; trigger_ask: string | null; trigger_at: Date | null }[]>`
        SELECT id, close_reason, close_rate::text, trigger_bid::text, trigger_ask::text, trigger_at FROM orders WHERE id IN ${sql(ids)} ORDER BY id`;
      expect(rows.map((r) => [Number(r.id), r.close_reason, Number(r.close_rate)])).toEqual(ids.map((id) => [id, 'sl', 128.65]));
      // the close records the tick that triggered it: its bid, ask and feed time
      expect(rows.map((r) => [Number(r.trigger_bid), Number(r.trigger_ask), r.trigger_at?.getTime()])).toEqual(ids.map(() => [128.6, 128.65, crossAt]));
    } finally {
      await core.stop();
      await bus.close();
    }
  }, 20_000);

  test('a close request carries the quote its trigger compared, per position instrument', () => {
    const r = new RiskEvaluator();
    r.setBalance(1, 100);
    r.setQuote(1, 10, 10, 1000);
    r.setQuote(2, 50, 50, 2000);
    // account 1: a buy on instrument 1 with a stop-loss, and a buy on instrument 2
    r.addPosition({ id: 1, accountId: 1, instrumentId: 1, side: 'buy', amount: 10, open: 10, spread: 0, exchangeRate: 1, margin: 0, tp: null, sl: 9, stopout: 50 });
    r.addPosition({ id: 2, accountId: 1, instrumentId: 2, side: 'buy', amount: 10, open: 50, spread: 0, exchangeRate: 1, margin: 0, tp: null, sl: null, stopout: 50 });
    expect(r.onTick(1, 8.9, 9, 3000)).toEqual([{ positionId: 1, accountId: 1, instrumentId: 1, reason: 'sl', tick: { bid: 8.9, ask: 9, ts: 3000 } }]);
    // a crash on instrument 2 takes equity to 0: the position on 2 closes at instrument 2's tick
    const out = r.onTick(2, 35, 35, 4000);
    expect(out).toEqual([{ positionId: 2, accountId: 1, instrumentId: 2, reason: 'zero_equity', tick: { bid: 35, ask: 35, ts: 4000 } }]);
    // and a crash on instrument 1 closes a position on 2 at 2's quote, at the time of 1's tick
    r.setBalance(5, 10);
    r.addPosition({ id: 3, accountId: 5, instrumentId: 1, side: 'buy', amount: 10, open: 9, spread: 0, exchangeRate: 1, margin: 0, tp: null, sl: null, stopout: 50 });
    r.addPosition({ id: 4, accountId: 5, instrumentId: 2, side: 'buy', amount: 1, open: 35, spread: 0, exchangeRate: 1, margin: 0, tp: null, sl: null, stopout: 50 });
    expect(r.onTick(1, 7.9, 7.9, 5000)).toEqual([
      { positionId: 3, accountId: 5, instrumentId: 1, reason: 'zero_equity', tick: { bid: 7.9, ask: 7.9, ts: 5000 } },
      { positionId: 4, accountId: 5, instrumentId: 2, reason: 'zero_equity', tick: { bid: 35, ask: 35, ts: 5000 } },
    ]);
  });
});

describe.skipIf(!redisUp)(`a replayed close settles at its own instrument's tick${needsRedis}`, () => {
  // Takeover replay (core.ts takeOver): the replay used to stamp every close a tick asked for with
  // that tick's price, whatever the position's instrument. Zero equity found on a crash of B
  // closed the account's position on A at B's price.
  test('zero equity found replaying a tick of B closes the position on A at A\'s tick', async () => {
    const PREFIX = `${uniq('closeprice')}:`;
    const A = await createInstrument(sql, { category: 'crypto', leverage: 100 });
    const B = await createInstrument(sql, { category: 'crypto', leverage: 100 });
    const feed = RedisBus.connect(REDIS, { prefix: PREFIX });
    cleanup.push(() => feed.close());
    const core = async (leased: boolean) => {
      const s = db(6);
      const bus = RedisBus.connect(REDIS, { prefix: PREFIX });
      const c = new Core({ sql: s, bus, flushMs: 0, partition: { count: 2, index: 0 }, leased });
      await c.start();
      cleanup.push(async () => { await c.stop(); await bus.close(); await s.end(); });
      return c;
    };
    const placer = await core(false); // owns partition 0: places the orders of partition 1, which has no owner
    let ts = Date.now();
    const tick = async (symbol: string, p: number) => {
      ts = Math.max(ts + 1, Date.now());
      const id = await feed.publish(TICKS, { symbol, bid: p, ask: p, ts });
      await within(2000, () => placer.lastTickId === id);
      return { id, ts };
    };
    await tick(A.name, 10);
    const from = (await tick(B.name, 100)).id; // partition 1 replays from here
    let u = await createUser(sql, { deposit: '100' });
    while (u.balanceId % 2 !== 1) u = await createUser(sql, { deposit: '100' });
    const place = async (instrument: string, amount: number) => {
      const r = await placeOrder(placer.orders, { userId: u.userId, type: 'buy', instrument, amount });
      if (!r.ok) throw new Error(r.message);
      return r.order.id;
    };
    const onA = await place(A.name, 10);  // margin 1
    const onB = await place(B.name, 20);  // margin 20: stop-out at 99.5
    await Bun.sleep(5);
    await tick(A.name, 10);                // A: a fresh price after the positions opened
    const bTick = await tick(B.name, 94); // B: stop-out; equity 100 − 120 < 0: zero equity closes A

    const taker = await core(true);
    await taker.takeOver(1, from);
    await taker.executor.idle();
    const rows = await sql<{ id: bigint; close_reason: string | null; close_rate: string | null; trigger_at: Date | null; close_time: Date | null }[]>`
      SELECT id, close_reason, close_rate::text, trigger_at, close_time FROM orders WHERE id IN (${onA}, ${onB}) ORDER BY id`;
    expect(rows.map((r) => [Number(r.id), r.close_reason, Number(r.close_rate), r.trigger_at?.getTime(), r.close_time?.getTime()])).toEqual([
      [onA, 'zero_equity', 10, bTick.ts, bTick.ts], // A's price, at the time of the tick that found it
      [onB, 'stop_out', 94, bTick.ts, bTick.ts],
    ]);
  }, 20_000);
});

describe('the close statements refuse a trigger close that does not reach its level', () => {
  const open = async (type: 'buy' | 'sell', level: { profit?: string; loss?: string }) => {
    const inst = await createInstrument(sql);
    const u = await createUser(sql, { deposit: '1000' });
    const [o] = await sql<{ id: bigint }[]>`
      INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, exchange_rate, spread, margin_used, leverage, profit, loss)
      VALUES (${u.userId}, ${u.balanceId}, ${inst.id}, ${type}, 'crypto', 1, 130, 1, 0, 13, 10, ${level.profit ?? null}, ${level.loss ?? null}) RETURNING id`;
    await sql`UPDATE balances SET margin = 13 WHERE id = ${u.balanceId}`;
    return String(o.id);
  };
  const single = (id: string, bid: string, ask: string, reason: string) =>
    sql`SELECT f.status FROM engine_close_order(${id}, NULL, ${bid}, ${ask}, ${reason}::close_reason, NULL, NULL) f`;
  const batch = (id: string, bid: string, ask: string, reason: string) =>
    sql`SELECT f.status FROM engine_close_orders(${[id]}::bigint[], ${[bid]}::numeric[], ${[ask]}::numeric[], ${[reason]}::close_reason[]) f`;

  test("a buy's 'sl' above its stop-loss, a sell's below it, and 'tp' short of the take-profit are refused", async () => {
    const buySl = await open('buy', { loss: '128.668' });
    await expect(single(buySl, '128.97', '128.979031', 'sl')).rejects.toThrow(/does not reach/);
    await expect(batch(buySl, '128.97', '128.979031', 'sl')).rejects.toThrow(/does not reach/);
    const sellSl = await open('sell', { loss: '131' });
    await expect(single(sellSl, '130.99', '131.5', 'sl')).rejects.toThrow(/does not reach/);
    const buyTp = await open('buy', { profit: '135' });
    await expect(batch(buyTp, '134.9', '134.99', 'tp')).rejects.toThrow(/does not reach/);
    const sellTp = await open('sell', { profit: '125' });
    await expect(single(sellTp, '125.01', '125.1', 'tp')).rejects.toThrow(/does not reach/);
    expect((await sql`SELECT count(*)::int AS n FROM orders WHERE id IN (${buySl}, ${sellSl}, ${buyTp}, ${sellTp}) AND close_time IS NOT NULL`)[0].n).toBe(0);
    // at or past the level they close (a gap past it is the crossing tick's price: worse, allowed)
    expect((await single(buySl, '128.6', '128.668', 'sl'))[0].status).toBe('ok');
    expect((await batch(sellSl, '131.2', '131.3', 'sl'))[0].status).toBe('ok');
    expect((await single(buyTp, '134.9', '135', 'tp'))[0].status).toBe('ok');
    expect((await batch(sellTp, '124', '124.1', 'tp'))[0].status).toBe('ok');
    // other reasons are not levels: a manual close prices wherever the market is
    const manual = await open('buy', { loss: '128.668' });
    expect((await single(manual, '128.97', '128.979031', 'manual'))[0].status).toBe('ok');
  });
});
