// Trailing stops (docs/specs.md#trailing-stop): the evaluator's grouped index against a naive
// per-position simulation (random walks: the same stops, never back, the same closes), then the
// engine on PostgreSQL: setting one, the stop following the price in memory, the throttled
// flush (one statement, one history row per position per flush), the close at the trailed
// stop, the live event, a partial close keeping it, and a takeover replaying the moves a crash lost.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createUser, cryptoEngine, db, uniq, within, type TestEngine, type TestInstrument } from './helpers.ts';
import { RiskEvaluator, type CloseRequest } from '../src/risk/evaluator.ts';
import { Core, EVENTS, TICKS, type RealtimeEvent } from '../src/core.ts';
import { RedisBus } from '../src/bus/index.ts';
import { placeOrder, modifyOrder } from '../src/orders/service.ts';
import { REDIS_URL as REDIS, needsRedis, redisUp } from './redis.ts';
import { createInstrument } from './helpers.ts';

const sql = db(4);
afterAll(() => sql.end());

/** Deterministic random numbers (mulberry32). */
function rng(seed: number) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the trail index = one position at a time', () => {
  test.each([1, 2, 3, 4, 5])('random walk %i: the same stops after every tick, never back, the same closes', (seed) => {
    const r = rng(seed);
    const risk = new RiskEvaluator();
    risk.setBalance(1, 1e12);
    type Naive = { side: 'buy' | 'sell'; d: number; sl: number | null; closed: boolean };
    const naive = new Map<number, Naive>();
    let price = 100;
    risk.setQuote(7, price - 0.01, price);
    for (let id = 1; id <= 200; id++) {
      const side = r() < 0.5 ? 'buy' : 'sell';
      const d = Math.round((0.2 + r() * 3) * 100) / 100;
      const sl = r() < 0.3 ? null : Math.round((side === 'buy' ? price - 1 - r() * 5 : price + 1 + r() * 5) * 100) / 100;
      // a position joins trailing at the quote held (bid price − 0.01, ask price)
      const start = side === 'buy' ? price - d : price - 0.01 + d;
      naive.set(id, { side, d, sl: sl === null || (side === 'buy' ? start > sl : start < sl) ? start : sl, closed: false });
      risk.addPosition({ id, accountId: 1, instrumentId: 7, side, amount: 1, open: price, spread: 0, exchangeRate: 1, margin: 0, tp: null, sl, stopout: 50, trail: d });
    }
    for (let k = 0; k < 3000; k++) {
      price = Math.max(1, Math.round((price + (r() - 0.48) * 0.6) * 100) / 100);
      const bid = price - 0.01, ask = price;
      const want = new Set<number>();
      for (const [id, n] of naive) {
        if (n.closed) continue;
        const next = n.side === 'buy' ? ask - n.d : bid + n.d;
        if (n.sl === null || (n.side === 'buy' ? next > n.sl : next < n.sl)) n.sl = next;
        if (n.side === 'buy' ? ask <= n.sl : bid >= n.sl) { n.closed = true; want.add(id); }
      }
      const got: CloseRequest[] = risk.onTick(7, bid, ask, k);
      expect(new Set(got.map((c) => c.positionId))).toEqual(want);
      for (const c of got) {
        expect(c.reason).toBe('sl');
        expect(c.stop).toBeCloseTo(naive.get(c.positionId)!.sl!, 8);
        risk.removePosition(c.positionId);
      }
      if (k % 97 === 0) {
        for (const [id, n] of naive) if (!n.closed) expect(risk.stopOf(id)).toBeCloseTo(n.sl!, 8);
        // what a flush writes: each moved position once, at its stop now
        const moves = risk.takeTrailMoves();
        expect(new Set(moves.map((m) => m.id)).size).toBe(moves.length);
        for (const m of moves) expect(m.sl).toBeCloseTo(naive.get(m.id)!.sl!, 8);
      }
    }
  });

  test('a buy trails the ask and a sell the bid; a fall never moves them back', () => {
    const risk = new RiskEvaluator();
    risk.setBalance(1, 1e9);
    risk.setQuote(3, 99, 100);
    risk.addPosition({ id: 1, accountId: 1, instrumentId: 3, side: 'buy', amount: 1, open: 100, spread: 0, exchangeRate: 1, margin: 0, tp: null, sl: 95, stopout: 50, trail: 2 });
    risk.addPosition({ id: 2, accountId: 1, instrumentId: 3, side: 'sell', amount: 1, open: 99, spread: 0, exchangeRate: 1, margin: 0, tp: null, sl: 104, stopout: 50, trail: 2 });
    expect([risk.stopOf(1), risk.stopOf(2)]).toEqual([98, 101]); // at once: 100 − 2, 99 + 2
    expect(risk.onTick(3, 100, 101)).toEqual([]);
    expect(risk.stopOf(1)).toBe(99);        // ask 101 − 2
    expect(risk.stopOf(2)).toBe(101);       // the bid rose: a sell's stop stays
    // the ask fell to the buy's stop: closed at it; the bid fell: the sell trails to 97.5 + 2
    expect(risk.onTick(3, 97.5, 98.5).map((c) => [c.positionId, c.reason, c.stop])).toEqual([[1, 'sl', 99]]);
    expect(risk.stopOf(2)).toBe(99.5);
    expect(risk.onTick(3, 99, 99.5)).toEqual([]);
    expect(risk.stopOf(2)).toBe(99.5);      // a rise never moves it back
    expect(risk.onTick(3, 99.5, 100).map((c) => [c.positionId, c.reason, c.stop])).toEqual([[2, 'sl', 99.5]]);
  });
});

describe('trailing stops on the engine', () => {
  let E: TestEngine, BTC: TestInstrument;
  const events: RealtimeEvent[] = [];
  beforeAll(async () => {
    ({ E, BTC } = await cryptoEngine(sql));
    E.bus.subscribe<RealtimeEvent>(EVENTS, (m) => { if (m.data.event === 'order.trailed') events.push(m.data); });
  });
  afterAll(() => E.stop());

  const loss = async (id: number) => (await sql<{ loss: string | null }[]>`SELECT loss::text FROM orders WHERE id = ${id}`)[0].loss;
  const moves = async (id: number) => sql<{ loss_from: string | null; loss_to: string }[]>`
    SELECT loss_from::text, loss_to::text FROM order_level_moves WHERE order_id = ${id} ORDER BY id`;

  test('set on a position: bounded by the smallest distance, starts behind the price', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const id = (await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 })).body.order.id;
    await sql`UPDATE instruments SET trailing_min_distance = 0.5 WHERE id = ${BTC.id}`;
    try {
      const low = await E.call('PATCH', `/orders/${id}`, { userId: u.userId, trailing: '0.4' });
      expect(low).toEqual({ status: 422, body: { code: 'bad_trailing', message: 'Trailing distance must be at least 0.5' } });
      const bad = await E.call('PATCH', `/orders/${id}`, { userId: u.userId, trailing: 'x' });
      expect(bad.status).toBe(422);
      expect(bad.body.message).toBe('Trailing distance must be a number like 12.5');
      expect(await loss(id)).toBeNull();
      const ok = await E.call('PATCH', `/orders/${id}`, { userId: u.userId, trailing: '2' });
      expect(ok.body.order).toMatchObject({ trailing_distance: '2.0000000000', loss: '99.0000000000' }); // ask 101 − 2
      expect(E.core.risk.stopOf(id)).toBe(99);
      // off again: the stop-loss stays where it is and no longer trails
      const off = await E.call('PATCH', `/orders/${id}`, { userId: u.userId, trailing: null });
      expect(off.body.order).toMatchObject({ trailing_distance: null, loss: '99.0000000000' });
      await E.quote(BTC.name, 110, 111);
      expect(E.core.risk.stopOf(id)).toBe(99);
    } finally {
      await sql`UPDATE instruments SET trailing_min_distance = NULL WHERE id = ${BTC.id}`;
      await E.quote(BTC.name, 100, 101);
    }
  });

  test('moves in memory on every tick, written once per flush in one statement, never back, closed at the trailed stop', async () => {
    const u = await createUser(sql, { deposit: '10000' });
    const ids: number[] = [];
    for (let k = 0; k < 3; k++) {
      const id = (await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 })).body.order.id;
      expect((await E.call('PATCH', `/orders/${id}`, { userId: u.userId, trailing: String(3 + k) })).status).toBe(200);
      ids.push(id);
    }
    await E.core.flushTrails();
    const statements = E.core.trails.statements, writes = E.core.trails.writes;
    for (let p = 101; p <= 150; p++) await E.quote(BTC.name, p - 1, p);      // 50 ticks up
    expect(ids.map((id) => E.core.risk.stopOf(id))).toEqual([147, 146, 145]);
    expect(await loss(ids[0])).toBe('98.0000000000');                        // nothing written yet
    expect(await E.core.flushTrails()).toBe(3);
    expect(E.core.trails.statements - statements).toBe(1);
    expect(E.core.trails.writes - writes).toBe(3);
    const metrics = await (await E.app.handle(new Request('http://engine/v1/metrics'))).text();
    expect(metrics).toMatch(new RegExp(`^engine_trail_writes_total ${E.core.trails.writes}$`, 'm'));
    expect(metrics).toMatch(new RegExp(`^engine_trail_statements_total ${E.core.trails.statements}$`, 'm'));
    expect(await loss(ids[0])).toBe('147.0000000000');
    expect([...await moves(ids[0])]).toEqual([{ loss_from: '98.0000000000', loss_to: '147.0000000000' }]);
    await within(1000, () => events.some((e) => e.topic === `user:${u.userId}`));
    const ev = events.find((e) => e.topic === `user:${u.userId}`)!;
    expect(ev.data).toEqual({ moves: expect.arrayContaining([{ id: ids[0], loss: '147.0000000000' }]) });

    // down: nothing moves back, nothing is written
    await E.quote(BTC.name, 146.5, 147.5);
    expect(ids.map((id) => E.core.risk.stopOf(id))).toEqual([147, 146, 145]);
    expect(await E.core.flushTrails()).toBe(0);
    // up again, then down to the first stop: it closes 'sl' at the tick, its trailed stop written first
    await E.quote(BTC.name, 151, 152);
    await E.quote(BTC.name, 148, 149);
    const [c] = await sql<{ close_reason: string; close_rate: string; loss: string }[]>`
      SELECT close_reason, close_rate::text, loss::text FROM orders WHERE id = ${ids[0]}`;
    expect(c).toEqual({ close_reason: 'sl', close_rate: '149.0000000000', loss: '149.0000000000' });
    expect(E.core.risk.position(ids[1])).toBeDefined();
    await E.core.flushTrails();
    expect(await loss(ids[1])).toBe('148.0000000000');
    for (const id of ids.slice(1)) await E.call('POST', `/orders/${id}/close`, { userId: u.userId });
    await E.quote(BTC.name, 100, 101);
  });

  test('a partial close keeps the stop as trailed', async () => {
    const u = await createUser(sql, { deposit: '10000' });
    const id = (await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 2 })).body.order.id;
    await E.call('PATCH', `/orders/${id}`, { userId: u.userId, trailing: '1' });
    await E.quote(BTC.name, 104, 105);
    expect(E.core.risk.stopOf(id)).toBe(104);
    const r = await E.call('POST', `/orders/${id}/close`, { userId: u.userId, quantity: '1' });
    expect(r.status).toBe(200);
    expect(E.core.risk.stopOf(id)).toBe(104);
    await E.core.flushTrails();
    expect(await loss(id)).toBe('104.0000000000');
    await E.call('POST', `/orders/${id}/close`, { userId: u.userId });
    await E.quote(BTC.name, 100, 101);
  });
});

describe.skipIf(!redisUp)(`trailing stops across a crash${needsRedis}`, () => {
  test('a takeover replays the ticks since the saved id: the stop moves as the dead owner moved it; a restart reads the written one', async () => {
    const PREFIX = `${uniq('trail')}:`;
    const cleanup: (() => Promise<unknown>)[] = [];
    try {
      const inst = await createInstrument(sql, { category: 'crypto', leverage: 1 });
      const feed = RedisBus.connect(REDIS, { prefix: PREFIX });
      cleanup.push(() => feed.close());
      const core = async () => {
        const s = db(6);
        const bus = RedisBus.connect(REDIS, { prefix: PREFIX });
        const c = new Core({ sql: s, bus, flushMs: 0, trailFlushMs: 0, partition: { count: 1, index: 0 }, leased: true });
        await c.start();
        cleanup.push(async () => { await c.stop(); await bus.close(); await s.end(); });
        return c;
      };
      const a = await core();
      await a.takeOver(0, null);
      let ts = Date.now();
      const tick = async (p: number, ...cores: Core[]) => {
        ts = Math.max(ts + 1, Date.now());
        const id = await feed.publish(TICKS, { symbol: inst.name, bid: p, ask: p, ts });
        await within(2000, () => cores.every((c) => c.lastTickId === id));
        return id;
      };
      await tick(100, a);
      const u = await createUser(sql, { deposit: '10000' });
      const placed = await placeOrder(a.orders, { userId: u.userId, type: 'buy', instrument: inst.name, amount: 1 });
      if (!placed.ok) throw new Error(placed.message);
      const id = placed.order.id;
      const set = await modifyOrder(a.orders, { orderId: id, userId: u.userId, trailing: '5' });
      expect(set.ok && set.order.loss).toBe('95.0000000000');
      await tick(110, a);
      await a.flushTrails();                    // written: 105
      const saved = a.safeTickId();             // what the lease manager saves now
      await tick(120, a);                       // moved to 115 in memory only: the owner "dies" here
      expect(a.risk.stopOf(id)).toBe(115);
      expect(a.safeTickId()).toBe(saved);       // an unwritten move holds the saved id back
      await tick(117, a);

      // the next owner replays from the saved id: the move to 115 is made again, and written
      const b = await core();
      await b.takeOver(0, saved);
      expect(b.risk.stopOf(id)).toBe(115);
      expect(await b.flushTrails()).toBe(1);
      const [o] = await sql<{ loss: string; close_time: Date | null }[]>`SELECT loss::text, close_time FROM orders WHERE id = ${id}`;
      expect(o).toEqual({ loss: '115.0000000000', close_time: null });
      // and a fresh rebuild reads it with its distance, trailing on from there
      const c = await core();
      await c.takeOver(0, null);
      expect(c.risk.stopOf(id)).toBe(115);
      expect(c.risk.position(id)!.trail).toBe(5);
      // replayed and live alike: a fall to the stop closes it once
      await tick(114, a, b, c);
      await within(3000, async () => (await sql`SELECT 1 FROM orders WHERE id = ${id} AND close_reason = 'sl'`).length === 1);
      const [closed] = await sql<{ close_rate: string; n: number }[]>`
        SELECT close_rate::text, (SELECT count(*)::int FROM ledger_entries l WHERE l.ref_kind = 'order' AND l.ref_id = ${String(id)}) AS n
          FROM orders WHERE id = ${id}`;
      expect(closed).toEqual({ close_rate: '114.0000000000', n: 1 });
    } finally {
      for (const c of cleanup.reverse()) await c().catch(() => {});
    }
  });
});
