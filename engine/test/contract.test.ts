// The web ↔ engine contract through the typed client web uses (contract/client.ts), against the
// engine app in process and real PostgreSQL: bodies are the route schemas, the engine resolves the
// active wallet and ownership, refusals come back as { ok: false, status, code, message }, staff
// commands go through the same client, and an engine that cannot be reached is a clean 503.
import { describe, expect, test, beforeAll, afterAll } from 'bun:test';
import { db, createUser, createInstrument, engine, SECRET, within } from './helpers.ts';
import { engineClient, type EngineClient } from '../src/contract/client.ts';
import { CLOSE_REASON_LABELS, STREAM_EVENTS, USER_EVENTS, EXPOSURE_EVENTS, isPublishedEvent, type StreamEventName } from '../src/contract/events.ts';
import { EVENTS, type RealtimeEvent } from '../src/bus/streams.ts';

const sql = db(10);
let E: Awaited<ReturnType<typeof engine>>;
let client: EngineClient;
let BTC: { id: number; name: string };

beforeAll(async () => {
  BTC = await createInstrument(sql, { category: 'crypto', leverage: 10 });
  E = await engine(sql);
  await E.quote(BTC.name, 100, 101);
  client = engineClient(E.app, { secret: SECRET });
});
afterAll(async () => { await E.stop(); await sql.end(); });

/** a second wallet for the user; `active` makes it the one the engine uses without a balanceId */
async function wallet(userId: number, mode: 'demo' | 'real', opts: { deposit?: string; active?: boolean } = {}) {
  const [b] = await sql<{ id: bigint }[]>`INSERT INTO balances (user_id, mode, currency) VALUES (${userId}, ${mode}, 'USD') RETURNING id`;
  if (opts.deposit) await sql`SELECT * FROM post_ledger(${String(b.id)}, ${opts.deposit}, 'deposit', 'test', ${`dep-${b.id}`})`;
  if (opts.active) await sql`UPDATE users SET active_balance_id = ${String(b.id)} WHERE id = ${userId}`;
  return Number(b.id);
}

describe('customer commands through the typed client', () => {
  test('without a balanceId the order goes on the user\'s active wallet, which the engine resolves', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const demo = await wallet(u.userId, 'demo', { deposit: '500', active: true });
    const r = await client.placeOrder({ userId: u.userId, type: 'buy', instrument: BTC.name, amount: '1', profit: null, loss: null });
    if (!r.ok) throw new Error(r.message);
    expect(r.order.balance_id).toBe(demo);
    expect(r.replayed).toBe(false);
  });

  test('a wallet chosen by the user is used when it is theirs, refused when it is another\'s', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const other = await createUser(sql, { deposit: '1000' });
    const own = await client.placeOrder({ userId: u.userId, balanceId: u.balanceId, type: 'sell', instrument: BTC.name, amount: '1', profit: null, loss: null });
    expect(own.ok && own.order.balance_id).toBe(u.balanceId);
    const theirs = await client.placeOrder({ userId: u.userId, balanceId: other.balanceId, type: 'buy', instrument: BTC.name, amount: '1', profit: null, loss: null });
    expect(theirs).toEqual({ ok: false, status: 404, code: 'not_found', message: 'Balance not found' });
    expect((await sql`SELECT count(*)::int AS n FROM orders WHERE balance_id = ${other.balanceId}`)[0].n).toBe(0);
  });

  test('another user\'s order can be neither closed nor modified; the owner can', async () => {
    const owner = await createUser(sql, { deposit: '1000' });
    const other = await createUser(sql, { deposit: '1000' });
    const placed = await client.placeOrder({ userId: owner.userId, type: 'buy', instrument: BTC.name, amount: '1', profit: null, loss: null });
    if (!placed.ok) throw new Error(placed.message);
    const id = placed.order.id;
    expect(await client.closeOrder(id, other.userId)).toEqual({ ok: false, status: 404, code: 'not_found', message: 'Order not found' });
    expect(await client.modifyOrder(id, { userId: other.userId, profit: '150' })).toEqual({ ok: false, status: 404, code: 'not_found', message: 'Order not found' });
    const m = await client.modifyOrder(id, { userId: owner.userId, profit: '150' });
    expect(m.ok && m.order.profit).toBe('150.0000000000');
    const c = await client.closeOrder(id, owner.userId);
    expect(c.ok && c.order.close_reason).toBe('manual');
  });

  test('a refused number keeps the engine\'s status, code and message', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const r = await client.placeOrder({ userId: u.userId, type: 'buy', instrument: BTC.name, amount: '0.000000001', profit: null, loss: null });
    expect(r).toEqual({ ok: false, status: 422, code: 'invalid_amount', message: 'Amount allows at most 5 decimal places' });
    const tp = await client.placeOrder({ userId: u.userId, type: 'buy', instrument: BTC.name, amount: '1', profit: '100.5', loss: null });
    expect(tp).toEqual({ ok: false, status: 422, code: 'bad_take_profit', message: 'Take profit must be at or above the ask (101)' });
  });
});

describe('staff commands through the typed client', () => {
  test('edit, force close and delete a trade', async () => {
    const admin = await createUser(sql, { role: 1 });
    const u = await createUser(sql, { deposit: '1000' });
    const placed = await client.placeOrder({ userId: u.userId, type: 'buy', instrument: BTC.name, amount: '1', profit: null, loss: null });
    if (!placed.ok) throw new Error(placed.message);
    const id = placed.order.id;
    const edit = await client.adminEditOrder(id, { actorId: admin.userId, ip: '10.0.0.1', profit: '150', spread: '0.5' });
    expect(edit.ok && edit.order).toMatchObject({ profit: '150.0000000000', spread: '0.50000000' });
    expect(await client.adminEditOrder(id, { actorId: admin.userId, closeRate: '5' }))
      .toEqual({ ok: false, status: 400, code: 'invalid', message: 'Open trades cannot have the close rate edited' });
    const close = await client.adminCloseOrder(id, { actorId: admin.userId });
    expect(close.ok && close.order).toMatchObject({ close_reason: 'admin', closed_by: admin.userId });
    const del = await client.adminDeleteOrder(id, { actorId: admin.userId });
    expect(del.ok && del.order.id).toBe(id);
    expect(await client.adminDeleteOrder(id, { actorId: admin.userId })).toEqual({ ok: false, status: 404, code: 'not_found', message: 'Order not found' });
    const audits = await sql`SELECT action FROM audit_events WHERE target_kind = 'order' AND target_id = ${String(id)} ORDER BY id`;
    expect(audits.map((a) => a.action)).toEqual(['order.edit', 'order.force_close', 'order.delete']);
  });
});

describe('the realtime contract (contract/events.ts)', () => {
  test('every event the engine publishes is one the contract names, and web listens for each user event', async () => {
    const seen = new Set<string>();
    const stop = E.bus.subscribe<RealtimeEvent>(EVENTS, (m) => { seen.add(m.data.event); });
    try {
      const admin = await createUser(sql, { role: 1 });
      const u = await createUser(sql, { deposit: '1000' });
      // opened, modified, closed by the customer; opened, closed by take-profit (a notification);
      // opened, force closed and deleted by staff; balances all along
      const a = await client.placeOrder({ userId: u.userId, type: 'buy', instrument: BTC.name, amount: '1', profit: null, loss: null });
      if (!a.ok) throw new Error(a.message);
      expect((await client.modifyOrder(a.order.id, { userId: u.userId, loss: '50' })).ok).toBe(true);
      expect((await client.closeOrder(a.order.id, u.userId)).ok).toBe(true);
      const b = await client.placeOrder({ userId: u.userId, type: 'buy', instrument: BTC.name, amount: '1', profit: '105', loss: null });
      if (!b.ok) throw new Error(b.message);
      await E.quote(BTC.name, 106, 107);
      await E.core.notesIdle();
      await E.quote(BTC.name, 100, 101);
      const c = await client.placeOrder({ userId: u.userId, type: 'sell', instrument: BTC.name, amount: '1', profit: null, loss: null });
      if (!c.ok) throw new Error(c.message);
      expect((await client.adminCloseOrder(c.order.id, { actorId: admin.userId })).ok).toBe(true);
      expect((await client.adminDeleteOrder(c.order.id, { actorId: admin.userId })).ok).toBe(true);
      // pending orders: placed, modified, cancelled, and one filled
      const p = await client.placePending({ userId: u.userId, type: 'buy', instrument: BTC.name, amount: '1', profit: null, loss: null, orderType: 'limit', price: '95', expiry: 'gtc' });
      if (!p.ok) throw new Error(p.message);
      expect((await client.modifyPending(p.pending.id, { userId: u.userId, price: '96' })).ok).toBe(true);
      expect((await client.cancelPending(p.pending.id, u.userId)).ok).toBe(true);
      const f = await client.placePending({ userId: u.userId, type: 'buy', instrument: BTC.name, amount: '1', profit: null, loss: null, orderType: 'limit', price: '95', expiry: 'gtc' });
      if (!f.ok) throw new Error(f.message);
      await E.quote(BTC.name, 94, 95);
      await E.quote(BTC.name, 100, 101);
      // a trailing stop moved by the price (order.trailed, with the throttled flush)
      const d = await client.placeOrder({ userId: u.userId, type: 'buy', instrument: BTC.name, amount: '1', profit: null, loss: null });
      if (!d.ok) throw new Error(d.message);
      expect((await client.modifyOrder(d.order.id, { userId: u.userId, trailing: '1' })).ok).toBe(true);
      await E.quote(BTC.name, 103, 104);
      await E.core.flushTrails();
      expect((await client.closeOrder(d.order.id, u.userId)).ok).toBe(true);
      await E.quote(BTC.name, 100, 101);
      await within(3000, () => [...USER_EVENTS, ...EXPOSURE_EVENTS].every((e) => seen.has(e)));
    } finally { stop(); }
    expect([...seen].filter((e) => !(STREAM_EVENTS as readonly string[]).includes(e))).toEqual([]);
    expect([...USER_EVENTS, ...EXPOSURE_EVENTS].filter((e) => !seen.has(e))).toEqual([]);
  });

  test('an event outside the contract does not compile and is not publishable (POST /v1/events: realtime.test.ts)', () => {
    // @ts-expect-error: not an event of the contract
    const name: StreamEventName = 'order.reopened';
    expect(isPublishedEvent(name)).toBe(false);
    expect(isPublishedEvent('priceUpdate')).toBe(false); // the hub's own frame, never published
  });

  test('one label per close reason; staff closes read as the broker\'s', () => {
    expect(CLOSE_REASON_LABELS.admin).toBe('Closed by the broker');
    expect(Object.keys(CLOSE_REASON_LABELS).sort()).toEqual(['admin', 'manual', 'sl', 'stop_out', 'tp', 'zero_equity']);
  });
});

describe('the edge itself', () => {
  test('a wrong secret is a 401 refusal', async () => {
    const r = await engineClient(E.app, { secret: 'wrong' }).placeOrder({ userId: 1, type: 'buy', instrument: BTC.name, amount: '1', profit: null, loss: null });
    expect(r).toMatchObject({ ok: false, status: 401, message: 'Unauthorized' });
  });

  test('market data comes typed', async () => {
    const q = await client.quotes();
    if (!q.ok) throw new Error(q.message);
    expect(q.quotes.find((x) => x.name === BTC.name)).toMatchObject({ bids: 100, asks: 101 });
  });

  test('an engine that cannot be reached is a clean 503 refusal', async () => {
    const down = engineClient('http://127.0.0.1:1', { secret: SECRET, timeoutMs: 2000 });
    expect(await down.placeOrder({ userId: 1, type: 'buy', instrument: BTC.name, amount: '1', profit: null, loss: null }))
      .toEqual({ ok: false, status: 503, code: 'engine_unavailable', message: 'Something went wrong' });
    expect(await down.quotes()).toMatchObject({ ok: false, status: 503 });
  });
});
