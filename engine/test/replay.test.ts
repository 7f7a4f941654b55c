// Takeover replay in one process (Core.takeOver, issue 16 section 2): a core that takes a
// partition over replays the ticks since the saved id. A level crossed and uncrossed in that gap
// closes at the crossing tick's price and time, once; a position opened after a crossing tick is
// never closed on it; and an owned partition is not re-evaluated on the old ticks.
import { describe, expect, test, afterAll } from 'bun:test';
import { db, createUser, createInstrument, uniq, within } from './helpers.ts';
import { Core, TICKS } from '../src/core.ts';
import { RedisBus } from '../src/bus/index.ts';
import { placeOrder } from '../src/orders/service.ts';
import { REDIS_URL as REDIS, needsRedis, redisUp, reportSkip } from './redis.ts';

reportSkip('replay');
const PREFIX = `${uniq('replay')}:`;
const sql = db(4);
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => { for (const c of cleanup.reverse()) await c().catch(() => {}); await sql.end(); });

async function core(leased: boolean, index = 0) {
  const s = db(6);
  const bus = RedisBus.connect(REDIS, { prefix: PREFIX });
  const c = new Core({ sql: s, bus, flushMs: 0, partition: { count: 2, index }, leased });
  await c.start();
  cleanup.push(async () => { await c.stop(); await bus.close(); await s.end(); });
  return c;
}

describe.skipIf(!redisUp)(`takeover replay${needsRedis}`, () => {
  test('missed ticks are replayed: closed at the crossing tick, with its time, once; nothing before a position was opened', async () => {
    const inst = await createInstrument(sql, { category: 'crypto', leverage: 1 });
    const feed = RedisBus.connect(REDIS, { prefix: PREFIX });
    cleanup.push(() => feed.close());
    const placer = await core(false, 0); // owns partition 0 for good: places every order
    await Bun.sleep(50);
    let ts = Date.now();
    const tick = async (p: number) => {
      ts = Math.max(ts + 1, Date.now());
      const id = await feed.publish(TICKS, { symbol: inst.name, bid: p, ask: p, ts });
      await within(2000, () => placer.lastTickId === id);
      return { id, ts };
    };
    await tick(100);
    const users: { userId: number; balanceId: number }[] = [];
    while (users.filter((u) => u.balanceId % 2 === 1).length < 2) users.push(await createUser(sql, { deposit: '1000' }));
    const odd = users.filter((u) => u.balanceId % 2 === 1);
    const place = async (u: { userId: number }, body: object) => {
      const r = await placeOrder(placer.orders, { userId: u.userId, type: 'buy', instrument: inst.name, amount: 1, ...body });
      if (!r.ok) throw new Error(r.message);
      return r.order.id;
    };
    // partition 1 has no owner from here on: the id it would have saved
    const from = (await tick(100)).id;
    const early = await place(odd[0], { profit: 105 });
    const crossed = await tick(106);   // crosses `early`'s take-profit
    await tick(100);                   // and back
    await Bun.sleep(5);
    const late = await place(odd[1], { profit: 105 }); // opened after the crossing: 106 must not close it
    await tick(101);

    const taker = await core(true);
    expect(taker.owns(odd[0].balanceId)).toBe(false);
    await taker.takeOver(1, from);
    await taker.executor.idle();
    const rows = await sql<{ id: bigint; close_reason: string | null; close_rate: string | null; close_time: Date | null; n: number }[]>`
      SELECT o.id, o.close_reason, o.close_rate, o.close_time,
             (SELECT count(*)::int FROM ledger_entries l WHERE l.ref_kind = 'order' AND l.ref_id = o.id::text AND l.kind = 'trade_pnl') AS n
        FROM orders o WHERE o.id IN (${early}, ${late}) ORDER BY o.id`;
    expect(rows.map((r) => [Number(r.id), r.close_reason, r.close_rate === null ? null : Number(r.close_rate), r.close_time?.getTime() ?? null, r.n]))
      .toEqual([[early, 'tp', 106, crossed.ts, 1], [late, null, null, null, 0]]);
    expect(taker.failover.replayCloses).toBe(1);
    // the late position is now watched live by the new owner
    expect(taker.owns(odd[1].balanceId)).toBe(true);
    expect(taker.risk.position(late)).toBeDefined();
    await tick(106);
    await within(3000, async () => (await sql`SELECT close_reason FROM orders WHERE id = ${late}`)[0].close_reason === 'tp');
    expect(Number((await sql`SELECT close_rate FROM orders WHERE id = ${late}`)[0].close_rate)).toBe(106);

    // giving the partition up forgets its accounts; the safe id is the last tick read (once the
    // close has finished: the row is visible a moment before the executor lets the tick go)
    await taker.executor.idle();
    const safe = await taker.giveUp(1);
    expect(safe).toBe(taker.lastTickId);
    expect(taker.owns(odd[0].balanceId)).toBe(false);
  }, 20_000);
});
