// The admin dashboard's rollup of trades and closes (admin_rollup, admin_rollup_step in
// migrations/1733050000000_admin-dashboard-totals.sql; `rolledUp` in dashboard.server.ts): the
// figures stay exact across several rollup steps with the tail read live, concurrent steps never
// count twice, and a lower id committed after a higher one was rolled up is not lost. Trades go
// through the engine's own commands (engine_place_order / engine_close_order, the staff edit), on
// a day of the test's own; every figure is checked against sums read straight from the orders.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Book } from '../../../engine/src/book/book.ts';
import { connect as engineConnect } from '../../../engine/src/db.ts';
import { adminDeleteOrder, adminEditOrder, closeOrder, placeOrder, type OrderDeps } from '../../../engine/src/orders/service.ts';
import { dec } from '@broker/engine/domain';
import { dashboardData, rollupNow } from '~/modules/admin-dashboard/dashboard.server.ts';
import { createUser, testSql, unique, walletFor } from '../helpers.ts';

const sql = testSql(6);
const esql = engineConnect(process.env.DATABASE_URL!, { max: 3 });
const book = new Book();
const deps: OrderDeps = { sql: esql, book };
let DAY = '';
const inst = { id: 0, name: '' };
let admin = 0;
let user = { id: 0, wallet: 0 };

const addDays = (day: string, n: number) => { const d = new Date(`${day}T00:00:00Z`); d.setUTCDate(d.getUTCDate() + n); return d.toISOString().slice(0, 10); };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  for (;;) {
    const d = new Date(Date.UTC(1975 + Math.floor(Math.random() * 80), Math.floor(Math.random() * 12), 1 + Math.floor(Math.random() * 28)));
    DAY = d.toISOString().slice(0, 10);
    const [n] = await sql`
      SELECT (SELECT count(*) FROM admin_rollup WHERE day BETWEEN ${addDays(DAY, -1)}::date AND ${addDays(DAY, 1)}::date)
           + (SELECT count(*) FROM orders WHERE admin_utc_day(created_at) BETWEEN ${addDays(DAY, -1)}::date AND ${addDays(DAY, 1)}::date
                                             OR admin_utc_day(close_time) BETWEEN ${addDays(DAY, -1)}::date AND ${addDays(DAY, 1)}::date) AS n`;
    if (Number(n.n) === 0) break;
  }
  const name = `${unique('RU').toUpperCase().slice(0, 18)}_USD`;
  // crypto: its market never closes, so the test runs any day and hour (an index's closed at 22:00 UTC on a Friday)
  const [i] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, digits, bids, asks)
                        VALUES (${name}, 'RUX', 'USD', 'crypto', 10, 2, 100, 101) RETURNING id`;
  Object.assign(inst, { id: Number(i.id), name });
  book.setInstruments([{ id: inst.id, name, base: 'RUX', quote: 'USD', category: 'crypto', tradable: true, leverage: 10, digits: 2 }]);
  book.setFallbackRate((from, to) => (from === to ? dec(1) : undefined));
  book.apply({ symbol: name, bid: 100, ask: 101, ts: Date.now() });
  admin = (await createUser(sql, { roleId: 1 })).id;
  const u = await createUser(sql);
  user = { id: u.id, wallet: await walletFor(sql, u.id, { credit: '1000000' }) };
});
afterAll(async () => { await sql.end(); await esql.end(); });

/** A trade opened on the test's day; closed (with a P/L never zero) when `close` is given. */
async function trade(close?: number) {
  const r = await placeOrder(deps, { userId: user.id, balanceId: user.wallet, type: 'buy', instrument: inst.name, amount: '2', profit: null, loss: null });
  if (!r.ok) throw new Error(r.message);
  const id = r.order.id;
  await sql`UPDATE orders SET created_at = ${DAY}::date + time '12:00' WHERE id = ${id}`;
  if (close !== undefined) await closeAt(id, close);
  return id;
}
async function closeAt(id: number, bid: number) {
  book.apply({ symbol: inst.name, bid, ask: bid + 1, ts: Date.now() });
  const c = await closeOrder(deps, { orderId: id, reason: 'manual', userId: user.id });
  book.apply({ symbol: inst.name, bid: 100, ask: 101, ts: Date.now() });
  if (!c.ok) throw new Error(c.message);
  await sql`UPDATE orders SET close_time = ${DAY}::date + time '13:00' WHERE id = ${id}`;
}

/** What the page shows for the day, and the same straight from the orders. */
async function figures() {
  const d = await dashboardData(sql, { dateStart: DAY, dateEnd: DAY }, { quotes: false, rollupEveryMs: Infinity });
  const [s] = await sql`
    SELECT count(*) FILTER (WHERE admin_utc_day(o.created_at) = ${DAY}::date AND o.deleted_at IS NULL)::int AS trades,
           count(*) FILTER (WHERE admin_utc_day(o.close_time) = ${DAY}::date)::int AS closed,
           coalesce(sum(o.pro_loss) FILTER (WHERE admin_utc_day(o.close_time) = ${DAY}::date), 0)::text AS pnl,
           coalesce(sum(o.spread / o.exchange_rate) FILTER (WHERE admin_utc_day(o.close_time) = ${DAY}::date), 0)::text AS spreads
      FROM orders o WHERE o.instrument_id = ${inst.id}`;
  return {
    shown: { trades: d.totalTrades, closed: d.profitLoss.closedTrades, spreads: d.profitLoss.spreads, trading: d.profitLoss.trading },
    sums: { trades: s.trades, closed: s.closed, spreads: dec(s.spreads).toFixed(8), trading: dec(s.pnl).neg().minus(s.spreads).toFixed(8) },
  };
}
async function expectExact(why: string) {
  const f = await figures();
  expect(f.shown, why).toEqual(f.sums);
  return f.sums;
}
const marks = async () => Object.fromEntries((await sql`SELECT source, last_id::text AS id FROM admin_rollup_mark`).map((r) => [r.source, BigInt(r.id)]));
const rolledOnDay = async () => {
  const rows = await sql`SELECT metric, sum(n)::int AS n FROM admin_rollup WHERE day = ${DAY}::date GROUP BY metric`;
  return Object.fromEntries(rows.map((r) => [r.metric, r.n])) as Record<string, number>;
};
/** Rollup steps (margin 0) until both marks pass `orderId` and `ledgerId`: another transaction of the cluster may hold them back a while. */
async function rollPast(orderId: bigint, ledgerId: bigint, maxIds?: number) {
  for (let i = 0; i < 200; i++) {
    await rollupNow(sql, { marginSeconds: 0, maxIds });
    const m = await marks();
    if (m.orders >= orderId && m.ledger >= ledgerId) return;
    await sleep(100);
  }
  throw new Error('the rollup did not pass the test rows');
}
const lastLedger = async () => BigInt((await sql`SELECT max(id)::text AS id FROM ledger_entries`)[0].id);

describe('the rollup', () => {
  test('exact across several steps with the live tail: opens, closes, staff edits after the roll-up, deletes', async () => {
    const ids: number[] = [];
    for (let k = 0; k < 6; k++) ids.push(await trade(k % 2 ? 100 + k * 3 : undefined));
    const first = await expectExact('all in the tail');
    expect(first).toMatchObject({ trades: 6, closed: 3 });
    // several small steps (a few ids each): exact after each
    const end = BigInt(ids[ids.length - 1]);
    for (let step = 0; step < 50 && (await marks()).orders < end; step++) {
      await rollupNow(sql, { marginSeconds: 0, maxIds: 2 });
      await expectExact(`after step ${step}`);
    }
    await rollPast(end, await lastLedger());
    expect(await rolledOnDay()).toMatchObject({ trade: 6, closed: 3 });
    await expectExact('all rolled up');

    // after the roll-up: a staff spread edit of a rolled-up close (a ledger adjustment, in the tail),
    // two more closes, a close of an open one, a staff delete of a rolled-up trade
    const e = await adminEditOrder(deps, { orderId: ids[1], actorId: admin, spread: '2.5' });
    if (!e.ok) throw new Error(e.message);
    await closeAt(ids[0], 97);
    ids.push(await trade(111));
    const del = await adminDeleteOrder(deps, { orderId: ids[2], actorId: admin });
    if (!del.ok) throw new Error(del.message);
    const mid = await expectExact('rolled-up rows + the tail');
    expect(mid).toMatchObject({ trades: 6, closed: 5 });
    await rollPast(BigInt(ids[ids.length - 1]), await lastLedger());
    const after = await expectExact('rolled up again');
    expect(after).toEqual(mid);
    const [edited] = await sql`SELECT spread::text AS spread FROM orders WHERE id = ${ids[1]}`;
    expect(dec(edited.spread).toFixed(2), 'the independent sums carry the edited spread').toBe('2.50');
  });

  test('concurrent steps never count twice: a step holding the lock makes the others skip without waiting', async () => {
    const ids = [await trade(), await trade(104), await trade()];
    const before = await rolledOnDay();
    const hold = sql.begin(async (tx) => {
      const moved = await tx`SELECT * FROM admin_rollup_step('0 seconds', 50000)`;
      await sleep(700);
      return moved.length;
    });
    await sleep(200);
    const t0 = Date.now();
    const others = await Promise.all([rollupNow(sql, { marginSeconds: 0 }), rollupNow(sql, { marginSeconds: 0 }), rollupNow(sql, { marginSeconds: 0 })]);
    expect(others, 'skipped while the first holds the lock').toEqual([[], [], []]);
    expect(Date.now() - t0).toBeLessThan(500);
    await hold;
    // and many at once, then until past: each row once
    await Promise.all(Array.from({ length: 5 }, () => rollupNow(sql, { marginSeconds: 0 })));
    await rollPast(BigInt(ids[2]), await lastLedger());
    const now = await rolledOnDay();
    expect((now.trade ?? 0) - (before.trade ?? 0)).toBe(3);
    expect((now.closed ?? 0) - (before.closed ?? 0)).toBe(1);
    await expectExact('after concurrent steps');
  });

  test('a lower id committed after a higher one is not lost', { timeout: 40_000 }, async () => {
    await rollPast(BigInt((await sql`SELECT max(id)::text AS id FROM orders`)[0].id), await lastLedger());
    const before = await rolledOnDay();
    // A takes an id and stays open; B takes the next id and commits (both on the test's day)
    let lowId = 0n;
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    let taken!: () => void;
    const hasId = new Promise<void>((r) => { taken = r; });
    const a = sql.begin(async (tx) => {
      const [o] = await tx`INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, margin_used, leverage, created_at)
                           VALUES (${user.id}, ${user.wallet}, ${inst.id}, 'buy', 'crypto', 1, 100, 10, 10, ${DAY}::date + time '12:00') RETURNING id::text AS id`;
      lowId = BigInt(o.id);
      taken();
      await released;
    });
    await hasId;
    const [b] = await sql`INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, margin_used, leverage, created_at)
                          VALUES (${user.id}, ${user.wallet}, ${inst.id}, 'buy', 'crypto', 1, 100, 10, 10, ${DAY}::date + time '12:00') RETURNING id::text AS id`;
    const highId = BigInt(b.id);
    try {
      expect(highId > lowId).toBe(true);
      // steps while A is open: the mark stays below A's id (B's row waits with it)
      for (let k = 0; k < 3; k++) {
        await rollupNow(sql, { marginSeconds: 0 });
        expect((await marks()).orders < lowId).toBe(true);
      }
    } finally {
      release();
      await a;
    }
    await rollPast(highId, 0n);
    const now = await rolledOnDay();
    expect((now.trade ?? 0) - (before.trade ?? 0), 'both the late lower id and the higher one').toBe(2);
    await expectExact('after the late commit');
  });
});
