// Scale-out: two core processes (here two Cores, each with its own PostgreSQL pool and Redis
// connection, as two processes would have) split the balances by partition. Each evaluates
// only its partition, learns of orders placed through the other over the bus, closes each
// position exactly once and publishes each balance event once.
import { describe, expect, test, afterAll } from 'bun:test';
import { db, createUser, createInstrument, uniq, SECRET, within } from './helpers.ts';
import { Core, TICKS, EVENTS, type RealtimeEvent } from '../src/core.ts';
import { RedisBus } from '../src/bus/index.ts';
import { placeOrder, closeOrder } from '../src/orders/service.ts';
import { REDIS_URL as REDIS, needsRedis, redisUp, reportSkip } from './redis.ts';

reportSkip('partitions');
const PREFIX = `${uniq('part')}:`;
const sql = db(4);
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => { for (const c of cleanup.reverse()) await c().catch(() => {}); await sql.end(); });

async function core(index: number) {
  const s = db(10);
  const bus = RedisBus.connect(REDIS, { prefix: PREFIX });
  const c = new Core({ sql: s, bus, flushMs: 0, partition: { count: 2, index } });
  await c.start();
  cleanup.push(async () => { await c.stop(); await bus.close(); await s.end(); });
  return c;
}


describe.skipIf(!redisUp)(`partitions${needsRedis}`, () => {
  test('two core processes on the Redis bus: each position closed exactly once, each balance event published once', async () => {
    const inst = await createInstrument(sql, { category: 'crypto', leverage: 10 });
    const [A, B] = [await core(0), await core(1)];
    const feed = RedisBus.connect(REDIS, { prefix: PREFIX });
    cleanup.push(() => feed.close());
    const events: RealtimeEvent[] = [];
    const unsub = feed.subscribe<RealtimeEvent>(EVENTS, (m) => { events.push(m.data); });
    cleanup.push(async () => unsub());
    // the subscription reads from '$' (from when it is in): a marker is published until it is heard
    // (a marker outside the contract's events: the bus carries it, no stream ever would)
    const heard = () => events.some((e) => (e.event as string) === 'test.marker');
    await within(10_000, async () => {
      await feed.publish(EVENTS, { topic: 'test', event: 'test.marker', data: null } as unknown as RealtimeEvent);
      for (let i = 0; i < 25 && !heard(); i++) await Bun.sleep(10);
      return heard();
    });
    const tick = async (bid: number, ask: number) => {
      await feed.publish(TICKS, { symbol: inst.name, bid, ask, ts: Date.now() });
      await within(2000, () => A.book.quote(inst.name)?.ask === ask && B.book.quote(inst.name)?.ask === ask);
    };
    await tick(100, 101);

    const users = await Promise.all(Array.from({ length: 6 }, () => createUser(sql, { deposit: '1000' })));
    expect(new Set(users.map((u) => u.balanceId % 2)).size).toBe(2); // both partitions have balances
    // every order is placed through A; B owns the odd balances and must learn of them over the bus
    const ids: { id: number; balanceId: number }[] = [];
    for (const u of users) {
      for (let k = 0; k < 3; k++) {
        const r = await placeOrder(A.orders, { userId: u.userId, type: 'buy', instrument: inst.name, amount: 1, profit: 105 + k });
        if (!r.ok) throw new Error(r.message);
        ids.push({ id: r.order.id, balanceId: u.balanceId });
      }
    }
    const owner = (b: number) => (b % 2 === 0 ? A : B);
    const other = (b: number) => (b % 2 === 0 ? B : A);
    await within(2000, () => ids.every((o) => owner(o.balanceId).risk.position(o.id) !== undefined));
    expect(ids.every((o) => other(o.balanceId).risk.position(o.id) === undefined)).toBe(true);

    // the account figures agree whichever process answers
    const { createApp } = await import('../src/http/app.ts');
    const odd = ids.find((o) => o.balanceId % 2 === 1)!.balanceId;
    await tick(100, 102);
    const figures = await Promise.all([A, B].map(async (c) => {
      const res = await createApp({ sql, core: c, secret: SECRET }).handle(new Request(`http://engine/v1/accounts/${odd}`, { headers: { 'x-engine-secret': SECRET } }));
      return (await res.json() as { floatingPnl: number }).floatingPnl;
    }));
    expect(figures[0]).toBeCloseTo(3, 8); // three buys of 1 opened at 101, marked at 102
    expect(figures[1]).toBeCloseTo(3, 8);

    // a manual close through the non-owner reaches the owner's risk index
    await tick(100, 101);
    const manual = ids.find((o) => o.balanceId % 2 === 1)!;
    expect((await closeOrder(A.orders, { orderId: manual.id, reason: 'manual' })).ok).toBe(true);
    await within(2000, () => B.risk.position(manual.id) === undefined);

    // every take-profit crossed: each owner closes its own, once
    events.length = 0;
    await tick(110, 110);
    await within(3000, async () => (await sql`SELECT count(*)::int AS n FROM orders WHERE id IN ${sql(ids.map((o) => o.id))} AND close_time IS NULL`)[0].n === 0);
    await A.executor.idle(); await B.executor.idle();
    const rows = await sql<{ id: bigint; close_reason: string; n: number }[]>`
      SELECT o.id, o.close_reason, (SELECT count(*)::int FROM ledger_entries l WHERE l.ref_kind = 'order' AND l.ref_id = o.id::text AND l.kind = 'trade_pnl') AS n
        FROM orders o WHERE o.id IN ${sql(ids.map((o) => o.id))}`;
    expect(rows.filter((r) => r.close_reason === 'tp').length).toBe(ids.length - 1);
    // one P/L posting per take-profit close; the manual close at the open price made none
    expect(rows.every((r) => r.n === (r.close_reason === 'tp' ? 1 : 0))).toBe(true);
    const even = ids.filter((o) => o.balanceId % 2 === 0).length;
    expect(A.closesByReason.tp ?? 0).toBe(even);
    expect(B.closesByReason.tp ?? 0).toBe(ids.length - 1 - even);

    // one balance event per ledger posting (each close with P/L, then one deposit per balance)
    for (const u of users) await sql`SELECT * FROM post_ledger(${u.balanceId}, 5, 'deposit', 'test', ${uniq('dep')})`;
    const postings = ids.length - 1 + users.length;
    await within(2000, () => events.filter((e) => e.event === 'balance').length >= postings);
    await Bun.sleep(200); // a duplicate would arrive by now
    const balanceEvents = events.filter((e) => e.event === 'balance') as { data: { balanceId: number; balance: string } }[];
    expect(balanceEvents.length).toBe(postings);
    const keys = balanceEvents.map((e) => `${e.data.balanceId}:${e.data.balance}`);
    expect(new Set(keys).size).toBe(keys.length);
  }, 20_000);
});
