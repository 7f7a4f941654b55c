// Pending orders against real PostgreSQL (docs/specs.md#pending-orders): placing (side, minimum
// distance, levels against the order's price, expiry), each activation rule on both sides and
// across gaps, margin missing at activation, expiry, the customer's modify and cancel, the
// staff's audited cancel, two engines racing on one order, and a takeover replay activating an
// order once at the tick that reached it while its partition had no owner.
import { describe, expect, test, beforeAll, afterAll } from 'bun:test';
import { db, createUser, createInstrument, engine, uniq, within, type TestEngine } from './helpers.ts';
import { Core, TICKS } from '../src/core.ts';
import { MemoryBus, RedisBus } from '../src/bus/index.ts';
import { placePending } from '../src/orders/pending.ts';
import { reaches, PendingIndex } from '../src/risk/pending.ts';
import { pendingPriceProblem, sessionEnd } from '../src/domain/index.ts';
import { REDIS_URL as REDIS, needsRedis, redisUp } from './redis.ts';

const sql = db(30);
let E: TestEngine;
beforeAll(async () => { E = await engine(sql); });
afterAll(async () => { await E.stop(); await sql.end(); });

/** A fresh crypto instrument (leverage 10) quoted 100 / 101: no other test's orders on it. */
async function fresh() {
  const inst = await createInstrument(sql, { category: 'crypto', leverage: 10 });
  await E.core.reloadInstruments();
  await E.quote(inst.name, 100, 101);
  return inst;
}

const row = async (id: number) => (await sql<{ status: string; order_id: bigint | null; fill_rate: string | null; slippage: string | null; cancel_reason: string | null }[]>`
  SELECT status, order_id, fill_rate, slippage, cancel_reason FROM pending_orders WHERE id = ${id}`)[0];
const positions = (balanceId: number) => sql<{ id: bigint; type: string; open_rate: string; margin_used: string; profit: string | null; loss: string | null; created_at: Date }[]>`
  SELECT id, type, open_rate, margin_used, profit, loss, created_at FROM orders WHERE balance_id = ${balanceId} ORDER BY id`;
const margin = async (balanceId: number) => (await sql<{ margin: string }[]>`SELECT margin FROM balances WHERE id = ${balanceId}`)[0].margin;

async function place(body: Record<string, unknown>) {
  return E.call('POST', '/pending-orders', { amount: 1, expiry: 'gtc', ...body });
}

describe('placing', () => {
  test.each([
    ['buy', 'limit', 101, 'Buy Limit price must be below the ask (101)'],
    ['buy', 'stop', 100.5, 'Buy Stop price must be above the ask (101)'],
    ['sell', 'limit', 99, 'Sell Limit price must be above the bid (100)'],
    ['sell', 'stop', 100, 'Sell Stop price must be below the bid (100)'],
  ])('refused on the wrong side: %s %s at %d', async (type, orderType, price, message) => {
    const inst = await fresh();
    const u = await createUser(sql, { deposit: '1000' });
    const r = await place({ userId: u.userId, type, orderType, price, instrument: inst.name });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'bad_price', message });
    expect((await sql`SELECT count(*)::int AS n FROM pending_orders WHERE user_id = ${u.userId}`)[0].n).toBe(0);
  });

  test('the minimum distance is the bound of the message; levels are checked against the order price; nothing is reserved', async () => {
    const inst = await fresh();
    await sql`UPDATE instruments SET pending_min_distance = 2 WHERE id = ${inst.id}`;
    const u = await createUser(sql, { deposit: '1000' });
    const near = await place({ userId: u.userId, type: 'buy', orderType: 'limit', price: 99.5, instrument: inst.name });
    expect(near.status).toBe(422);
    expect(near.body.message).toBe('Buy Limit price must be at or below 99 (the ask (101) − the minimum distance 2)');
    const sl = await place({ userId: u.userId, type: 'buy', orderType: 'limit', price: 95, loss: 96, instrument: inst.name });
    expect(sl.status).toBe(422);
    expect(sl.body).toMatchObject({ code: 'bad_stop_loss', message: 'Stop loss must be between 0 and the order price (95)' });
    const tp = await place({ userId: u.userId, type: 'sell', orderType: 'stop', price: 90, profit: 91, instrument: inst.name });
    expect(tp.body).toMatchObject({ code: 'bad_take_profit', message: 'Take profit must be between 0 and the order price (90)' });
    const ok = await place({ userId: u.userId, type: 'buy', orderType: 'limit', price: 99, profit: 120, loss: 90, amount: 2, instrument: inst.name, idempotencyKey: 'k1' });
    expect(ok.status).toBe(201);
    expect(ok.body.pending).toMatchObject({ status: 'pending', order_type: 'limit', price: '99.0000000000', profit: '120.0000000000' });
    expect(ok.body.margin).toBe('19.8'); // 99 × 2 / 10: shown, not reserved
    expect(await margin(u.balanceId)).toBe('0.00000000');
    const again = await place({ userId: u.userId, type: 'buy', orderType: 'limit', price: 99, profit: 120, loss: 90, amount: 2, instrument: inst.name, idempotencyKey: 'k1' });
    expect(again.status).toBe(200);
    expect(again.body.pending.id).toBe(ok.body.pending.id);
    const other = await place({ userId: u.userId, type: 'buy', orderType: 'limit', price: 98, amount: 2, instrument: inst.name, idempotencyKey: 'k1' });
    expect(other.status).toBe(409);
  });

  test('expiry: end of day is the session end; a time must be in the future', async () => {
    const inst = await fresh();
    const u = await createUser(sql, { deposit: '1000' });
    const day = await place({ userId: u.userId, type: 'sell', orderType: 'limit', price: 105, expiry: 'day', instrument: inst.name });
    expect(day.status).toBe(201);
    expect(new Date(day.body.pending.expires_at).getTime()).toBe(sessionEnd('crypto', new Date(day.body.pending.created_at)).getTime());
    const past = await place({ userId: u.userId, type: 'sell', orderType: 'limit', price: 105, expiry: 'at', expiresAt: '2020-01-01T00:00:00Z', instrument: inst.name });
    expect(past.body).toMatchObject({ code: 'bad_expiry', message: 'Expiry time must be in the future' });
    const none = await place({ userId: u.userId, type: 'sell', orderType: 'limit', price: 105, expiry: 'at', instrument: inst.name });
    expect(none.body).toMatchObject({ code: 'bad_expiry', message: 'Expiry time is required' });
  });
});

describe('activation', () => {
  // [side, type, price, ticks that must not fill, the tick that fills, fill rate, slippage]
  test.each([
    ['buy', 'limit', 95, [[95, 96]], [94, 95], '95', '0'],
    ['buy', 'limit', 95, [[96, 97]], [89, 90], '90', '-5'],           // a gap below: filled at the better ask
    ['buy', 'stop', 105, [[103, 104]], [104, 105], '105', '0'],
    ['buy', 'stop', 105, [[103, 104]], [107, 108], '108', '3'],         // a gap above: the tick's ask, slippage recorded
    ['sell', 'limit', 110, [[109, 110]], [110, 111], '110', '0'],
    ['sell', 'limit', 110, [[109, 110]], [115, 116], '115', '-5'],
    ['sell', 'stop', 95, [[96, 97]], [95, 96], '95', '0'],
    ['sell', 'stop', 95, [[96, 97]], [91, 92], '91', '4'],
  ] as const)('%s %s at %d', async (type, orderType, price, misses, hit, fill, slip) => {
    const inst = await fresh();
    const u = await createUser(sql, { deposit: '10000' });
    const r = await place({ userId: u.userId, type, orderType, price, amount: 2, instrument: inst.name });
    expect(r.status).toBe(201);
    const id = r.body.pending.id;
    for (const [b, a] of misses) await E.quote(inst.name, b, a);
    expect((await row(id)).status).toBe('pending');
    expect((await positions(u.balanceId)).length).toBe(0);
    await E.quote(inst.name, hit[0], hit[1]);
    const p = await row(id);
    expect(p.status).toBe('filled');
    expect(Number(p.fill_rate)).toBe(Number(fill));
    expect(Number(p.slippage)).toBe(Number(slip));
    const pos = await positions(u.balanceId);
    expect(pos.length).toBe(1);
    expect(Number(pos[0].id)).toBe(Number(p.order_id));
    expect(pos[0].type).toBe(type);
    expect(Number(pos[0].open_rate)).toBe(Number(fill));
    // the margin of a market order at that rate: rate × 2 / 10
    expect(Number(pos[0].margin_used)).toBeCloseTo(Number(fill) * 2 / 10, 8);
    expect(E.core.risk.position(Number(p.order_id))).toBeDefined();
    expect(E.core.pending.get(id)).toBeUndefined();
    // once: the price there again fills nothing more
    await E.quote(inst.name, hit[0], hit[1]);
    expect((await positions(u.balanceId)).length).toBe(1);
  });

  test('the position keeps the take-profit and stop-loss of the order', async () => {
    const inst = await fresh();
    const u = await createUser(sql, { deposit: '10000' });
    const r = await place({ userId: u.userId, type: 'buy', orderType: 'limit', price: 95, profit: 120, loss: 80, instrument: inst.name });
    await E.quote(inst.name, 94, 95);
    expect((await row(r.body.pending.id)).status).toBe('filled');
    const [pos] = await positions(u.balanceId);
    expect([Number(pos.profit), Number(pos.loss)]).toEqual([120, 80]);
  });

  test('margin missing at activation: cancelled with the reason, the customer notified, nothing opened', async () => {
    const inst = await fresh();
    const u = await createUser(sql, { deposit: '100' });
    const r = await place({ userId: u.userId, type: 'buy', orderType: 'limit', price: 95, amount: 20, instrument: inst.name }); // needs 190
    expect(r.status).toBe(201);
    await E.quote(inst.name, 94, 95);
    expect(await row(r.body.pending.id)).toMatchObject({ status: 'cancelled', cancel_reason: 'insufficient_balance', order_id: null });
    expect((await positions(u.balanceId)).length).toBe(0);
    expect(await margin(u.balanceId)).toBe('0.00000000');
    await E.core.notesIdle();
    const [n] = await sql<{ title: string; data: { kind: string; id: number; reason: string } }[]>`SELECT title, data FROM notifications WHERE user_id = ${u.userId}`;
    expect(n.data).toMatchObject({ kind: 'pending.cancelled', id: r.body.pending.id, reason: 'insufficient_balance' });
    expect(n.title).toBe(`Pending order #${r.body.pending.id} cancelled: Insufficient balance at activation`);
  });

  test('free margin counts the open positions at their live prices', async () => {
    const inst = await fresh();
    const u = await createUser(sql, { deposit: '100' });
    // a position holding 50.5 of margin (101 × 5 / 10), then an order needing 38.8 at 97 (97 × 4 / 10): the free
    // margin covers it at the open price (100 − 50.5), not once the position is down (97 − 101) × 5 = −20
    // (less than the position's stop-out, half its margin)
    const open = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: inst.name, amount: 5 });
    expect(open.status).toBe(201);
    const r = await place({ userId: u.userId, type: 'buy', orderType: 'limit', price: 97, amount: 4, instrument: inst.name });
    await E.quote(inst.name, 96, 97); // free margin 100 − 20 − 50.5 = 29.5 < 38.8
    expect(await row(r.body.pending.id)).toMatchObject({ status: 'cancelled', cancel_reason: 'insufficient_free_margin' });
    expect((await positions(u.balanceId)).length).toBe(1);
  });

  test('one tick filling several orders of one balance checks each against the margin the earlier ones took', async () => {
    const inst = await fresh();
    const u = await createUser(sql, { deposit: '100' });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await place({ userId: u.userId, type: 'buy', orderType: 'limit', price: 95, amount: 4, instrument: inst.name }); // 38 each
      ids.push(r.body.pending.id);
    }
    await E.quote(inst.name, 94, 95); // 100 − 38 − 38 = 24 free: the third does not fit
    const rows = await Promise.all(ids.map(row));
    expect(rows.map((r) => [r.status, r.cancel_reason])).toEqual([['filled', null], ['filled', null], ['cancelled', 'insufficient_free_margin']]);
    expect(await margin(u.balanceId)).toBe('76.00000000');
    expect((await positions(u.balanceId)).length).toBe(2);
  });

  test('expiry: the engine expires the order at its time; a later tick at its price fills nothing', async () => {
    const inst = await fresh();
    const u = await createUser(sql, { deposit: '1000' });
    const at = new Date(Date.now() + 1200).toISOString();
    const r = await place({ userId: u.userId, type: 'buy', orderType: 'limit', price: 95, expiry: 'at', expiresAt: at, instrument: inst.name });
    expect(r.status).toBe(201);
    await within(5000, async () => (await row(r.body.pending.id)).status === 'expired');
    await E.quote(inst.name, 94, 95);
    expect((await positions(u.balanceId)).length).toBe(0);
    await E.core.notesIdle();
    const [n] = await sql<{ data: { kind: string; reason: string } }[]>`SELECT data FROM notifications WHERE user_id = ${u.userId}`;
    expect(n.data).toMatchObject({ kind: 'pending.cancelled', reason: 'expired' });
  });

  test('two engines holding the same order fill it once', async () => {
    const inst = await fresh();
    const u = await createUser(sql, { deposit: '10000' });
    const r = await place({ userId: u.userId, type: 'sell', orderType: 'stop', price: 95, instrument: inst.name });
    const s2 = db(4);
    const other = new Core({ sql: s2, bus: new MemoryBus(), flushMs: 0 });
    await other.start();
    try {
      expect(other.pending.get(r.body.pending.id)).toBeDefined();
      const ts = Date.now();
      E.core.ingest({ symbol: inst.name, bid: 94, ask: 95, ts });
      other.ingest({ symbol: inst.name, bid: 94, ask: 95, ts });
      await Promise.all([E.core.pendingIdle(), other.pendingIdle()]);
      expect((await positions(u.balanceId)).length).toBe(1);
      expect((await row(r.body.pending.id)).status).toBe('filled');
      expect(other.pending.get(r.body.pending.id)).toBeUndefined();
    } finally { await other.stop(); await s2.end(); }
  });
});

describe('modify and cancel', () => {
  test('the customer modifies price, amount, levels and expiry; refused changes change nothing', async () => {
    const inst = await fresh();
    const u = await createUser(sql, { deposit: '1000' });
    const r = await place({ userId: u.userId, type: 'buy', orderType: 'limit', price: 95, instrument: inst.name });
    const id = r.body.pending.id;
    const bad = await E.call('PATCH', `/pending-orders/${id}`, { userId: u.userId, price: 102 });
    expect(bad.body).toMatchObject({ code: 'bad_price', message: 'Buy Limit price must be below the ask (101)' });
    const other = await createUser(sql, { deposit: '1000' });
    expect((await E.call('PATCH', `/pending-orders/${id}`, { userId: other.userId, price: 90 })).status).toBe(404);
    const m = await E.call('PATCH', `/pending-orders/${id}`, { userId: u.userId, price: 90, amount: 3, loss: 85, expiry: 'day' });
    expect(m.status).toBe(200);
    expect(m.body.pending).toMatchObject({ price: '90.0000000000', trade_amount: '3.00000000', loss: '85.0000000000', expiry: 'day' });
    // the old price no longer fills it; the new one does
    await E.quote(inst.name, 94, 95);
    expect((await row(id)).status).toBe('pending');
    await E.quote(inst.name, 89, 90);
    expect((await row(id)).status).toBe('filled');
    expect((await E.call('PATCH', `/pending-orders/${id}`, { userId: u.userId, price: 80 })).status).toBe(409);
  });

  test('the customer cancels: it never fills; a second cancel is refused', async () => {
    const inst = await fresh();
    const u = await createUser(sql, { deposit: '1000' });
    const r = await place({ userId: u.userId, type: 'sell', orderType: 'limit', price: 105, instrument: inst.name });
    const id = r.body.pending.id;
    expect((await E.call('POST', `/pending-orders/${id}/cancel`, { userId: u.userId + 100000 })).status).toBe(404);
    const c = await E.call('POST', `/pending-orders/${id}/cancel`, { userId: u.userId });
    expect(c.status).toBe(200);
    expect(c.body.pending).toMatchObject({ status: 'cancelled', cancel_reason: 'customer' });
    expect((await E.call('POST', `/pending-orders/${id}/cancel`, { userId: u.userId })).body).toMatchObject({ code: 'already_closed', message: 'Order is no longer pending' });
    await E.quote(inst.name, 106, 107);
    expect((await positions(u.balanceId)).length).toBe(0);
    expect(E.core.pending.get(id)).toBeUndefined();
  });

  test('staff cancel is audited and notifies the customer', async () => {
    const inst = await fresh();
    const u = await createUser(sql, { deposit: '1000' });
    const staff = await createUser(sql, { role: 1 });
    const r = await place({ userId: u.userId, type: 'buy', orderType: 'stop', price: 110, instrument: inst.name });
    const id = r.body.pending.id;
    const c = await E.call('POST', `/admin/pending-orders/${id}/cancel`, { actorId: staff.userId, ip: '10.0.0.9' });
    expect(c.status).toBe(200);
    expect(await row(id)).toMatchObject({ status: 'cancelled', cancel_reason: 'staff' });
    const [a] = await sql<{ actor_id: bigint; action: string; ip: string; after: { status: string } }[]>`
      SELECT actor_id, action, ip, after FROM audit_events WHERE target_kind = 'pending_order' AND target_id = ${String(id)}`;
    expect([Number(a.actor_id), a.action, a.ip, a.after.status]).toEqual([staff.userId, 'pending.cancel', '10.0.0.9', 'cancelled']);
    await E.core.notesIdle();
    const [n] = await sql<{ data: { reason: string } }[]>`SELECT data FROM notifications WHERE user_id = ${u.userId}`;
    expect(n.data.reason).toBe('staff');
  });
});

describe('rules', () => {
  test('end of day: the instrument\'s trading day', () => {
    const at = (s: string) => sessionEnd('crypto', new Date(s)).toISOString();
    expect(at('2026-11-27T15:00:00Z')).toBe('2026-11-28T00:00:00.000Z');
    expect(sessionEnd('forex', new Date('2026-11-27T15:00:00Z')).toISOString()).toBe('2026-11-27T22:00:00.000Z');
    expect(sessionEnd('index', new Date('2026-11-26T23:00:00Z')).toISOString()).toBe('2026-11-27T22:00:00.000Z');
    // NYSE: 16:00 New York (EST, UTC−5) of the open session, else of the next one
    expect(sessionEnd('stock', new Date('2026-11-27T15:00:00Z')).toISOString()).toBe('2026-11-27T21:00:00.000Z');
    expect(sessionEnd('stock', new Date('2026-11-28T12:00:00Z')).toISOString()).toBe('2026-11-30T21:00:00.000Z');
    expect(sessionEnd('stock', new Date('2026-07-01T13:00:00Z')).toISOString()).toBe('2026-07-01T20:00:00.000Z'); // EDT
  });

  test('the price rule names its bound', () => {
    expect(pendingPriceProblem('sell', 'stop', 99, 100, 101, 0)).toEqual(null);
    expect(pendingPriceProblem('sell', 'stop', 99, 100, 101, 1.5)).toEqual({
      message: 'Sell Stop price must be at or below {{bound}} (the bid ({{price}}) − the minimum distance {{distance}})',
      values: { bound: '98.5', price: '100', distance: '1.5' },
    });
    expect(pendingPriceProblem('buy', 'stop', 101, 100, 101, 0)?.message).toBe('Buy Stop price must be above the ask ({{price}})');
    expect(pendingPriceProblem('sell', 'limit', 102, 100, 101, 2)).toEqual(null);
  });
});

describe('the index', () => {
  test('fires exactly the orders a naive scan finds, once each', () => {
    const idx = new PendingIndex();
    const all: { id: number; side: 'buy' | 'sell'; orderType: 'limit' | 'stop'; price: number }[] = [];
    let seed = 7;
    const rnd = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    for (let i = 1; i <= 2000; i++) {
      const p = { id: i, side: rnd() < 0.5 ? 'buy' as const : 'sell' as const, orderType: rnd() < 0.5 ? 'limit' as const : 'stop' as const, price: 90 + rnd() * 20 };
      all.push(p);
      idx.add({ ...p, accountId: i, instrumentId: 1, expiresMs: null });
    }
    const fired = new Set<number>();
    for (let k = 0; k < 300; k++) {
      const bid = 90 + rnd() * 20, ask = bid + 0.1;
      const got = idx.onTick(1, bid, ask, k).map((a) => a.pendingId);
      const want = all.filter((p) => !fired.has(p.id) && reaches(p, bid, ask)).map((p) => p.id);
      expect(got.sort((a, b) => a - b)).toEqual(want.sort((a, b) => a - b));
      for (const id of got) { fired.add(id); idx.remove(id); }
    }
  });
});

describe.skipIf(!redisUp)(`takeover replay${needsRedis}`, () => {
  test('an order reached while its partition had no owner fills at that tick, with its time, once', async () => {
    const PREFIX = `${uniq('pend')}:`;
    const inst = await createInstrument(sql, { category: 'crypto', leverage: 1 });
    const feed = RedisBus.connect(REDIS, { prefix: PREFIX });
    const cores: { c: Core; bus: RedisBus; s: ReturnType<typeof db> }[] = [];
    const core = async (leased: boolean) => {
      const s = db(6);
      const bus = RedisBus.connect(REDIS, { prefix: PREFIX });
      const c = new Core({ sql: s, bus, flushMs: 0, partition: { count: 2, index: 0 }, leased });
      await c.start();
      cores.push({ c, bus, s });
      return c;
    };
    try {
      const placer = await core(false); // owns partition 0 only
      await Bun.sleep(50);
      let ts = Date.now();
      const tick = async (bid: number, ask: number) => {
        ts = Math.max(ts + 1, Date.now());
        const id = await feed.publish(TICKS, { symbol: inst.name, bid, ask, ts });
        await within(2000, () => placer.lastTickId === id);
        return { id, ts };
      };
      await tick(100, 101);
      let u = await createUser(sql, { deposit: '1000' });
      while (u.balanceId % 2 !== 1) u = await createUser(sql, { deposit: '1000' });
      const from = (await tick(100, 101)).id; // partition 1 has no owner from here on
      const r = await placePending(placer.pendingDeps, { userId: u.userId, type: 'buy', orderType: 'limit', price: '95', amount: '1', instrument: inst.name, expiry: 'gtc' });
      if (!r.ok) throw new Error(r.message);
      expect(placer.pending.get(r.pending.id)).toBeUndefined(); // not its partition
      const crossed = await tick(93, 94);   // reaches the Buy Limit at 95: fills at 94
      await tick(100, 101);                 // and back
      await tick(92, 93);                   // again: must not fill a second time

      const taker = await core(true);
      await taker.takeOver(1, from);
      await taker.pendingIdle();
      await taker.executor.idle();
      const p = (await sql<{ status: string; order_id: bigint; fill_rate: string; trigger_at: Date }[]>`
        SELECT status, order_id, fill_rate, trigger_at FROM pending_orders WHERE id = ${r.pending.id}`)[0];
      expect(p.status).toBe('filled');
      expect(Number(p.fill_rate)).toBe(94);
      expect(p.trigger_at.getTime()).toBe(crossed.ts);
      const pos = await positions(u.balanceId);
      expect(pos.length).toBe(1);
      expect(Number(pos[0].open_rate)).toBe(94);
      expect(pos[0].created_at.getTime()).toBe(crossed.ts);
      expect(taker.failover.replayActivations).toBe(1);
      expect(taker.risk.position(Number(pos[0].id))).toBeDefined();
      // a second takeover replaying the same ticks (a crash before the id was saved) fills nothing more
      const again = await core(true);
      await again.takeOver(1, from);
      await again.pendingIdle();
      expect((await positions(u.balanceId)).length).toBe(1);
    } finally {
      for (const { c, bus, s } of cores.reverse()) { await c.stop().catch(() => {}); await bus.close(); await s.end(); }
      await feed.close();
    }
  }, 30_000);
});
