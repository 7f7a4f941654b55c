// Partial close (docs/specs.md#partial-close): the SQL statement against the domain's arithmetic
// (one table of cases, as parity.test.ts), a partial close equal to closing two positions one by
// one, the remainder rules, and the engine's command end to end (ledger, evaluator, audit).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createInstrument, createUser, cryptoEngine, db, type TestEngine, type TestInstrument } from './helpers.ts';
import { CASES } from './trading-cases.ts';
import { dec, exact, money, partShare, partialSplit, rate, float } from '../src/domain/index.ts';

const sql = db(4);
afterAll(() => sql.end());

const fix = (v: Parameters<typeof money>[0]) => (money(v).isZero() ? '0.00000000' : money(v).toFixed(8));

/** A position inserted as the place statement would (lots set), on a fresh wallet; answers its id and wallet. */
async function position(c: (typeof CASES)[number], lots: string, spread: string, margin: string) {
  const units = exact.lotsToUnits(c.category, lots).toString();
  const open = rate(exact.markRate(c.side, c.open.bid, c.open.ask)).toString();
  const { userId, balanceId } = await createUser(sql, { deposit: c.balance });
  const inst = await createInstrument(sql, { category: c.category, leverage: c.leverage });
  const [o] = await sql<{ id: bigint }[]>`
    INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, lots, open_rate, exchange_rate, spread, margin_used, leverage)
    VALUES (${userId}, ${balanceId}, ${inst.id}, ${c.side}, ${c.category}, ${units}, ${lots}, ${open}, ${c.xr}, ${spread}, ${margin}, ${c.leverage})
    RETURNING id`;
  await sql`UPDATE balances SET margin = margin + ${margin} WHERE id = ${balanceId}`;
  return { id: String(o.id), balanceId, userId, open, units };
}

const figures = (c: (typeof CASES)[number]) => {
  const units = exact.lotsToUnits(c.category, c.lots);
  const open = rate(exact.markRate(c.side, c.open.bid, c.open.ask));
  return {
    spread: money(exact.spreadCost(c.open.bid, c.open.ask, c.spreadSetting, units)).toFixed(8),
    margin: money(exact.marginRequired(open, units, c.leverage, c.xr)).toFixed(8),
  };
};

// half the lots on the lot step (cases of at least 0.02 lot)
const halves = CASES.filter((c) => dec(c.lots).gte('0.02')).map((c) => [c.name, c, dec(c.lots).div(2).toDecimalPlaces(2, 1).toFixed()] as const);

describe('partial close: SQL = domain, and = two positions closed one by one', () => {
  test.each(halves)('%s', async (_, c, part) => {
    const f = figures(c);
    const split = partialSplit({ category: c.category, trade_amount: exact.lotsToUnits(c.category, c.lots).toString(), lots: c.lots, spread: f.spread, margin_used: f.margin }, part);
    if (!split.ok) throw new Error(split.message);
    // the shares: part_share() = partShare()
    const [s] = await sql<{ spread: string; margin: string }[]>`
      SELECT part_share(${f.spread}::numeric(24, 8), ${split.amount}::numeric, ${exact.lotsToUnits(c.category, c.lots).toString()}::numeric(24, 8))::text AS spread,
             part_share(${f.margin}::numeric(24, 8), ${split.amount}::numeric, ${exact.lotsToUnits(c.category, c.lots).toString()}::numeric(24, 8))::text AS margin`;
    expect([fix(s.spread), fix(s.margin)]).toEqual([fix(split.spread), fix(split.margin)]);
    expect(partShare(f.spread, split.amount, exact.lotsToUnits(c.category, c.lots)).toFixed(8)).toBe(split.spread);

    // A: one position, a partial close then the rest closed
    const a = await position(c, c.lots, f.spread, f.margin);
    const [p] = await sql<{ status: string; pro_loss: string; margin_used: string; rest_amount: string; rest_lots: string; rest_margin: string; rest_spread: string; position_id: string }[]>`
      SELECT f.status, (f.o).pro_loss::text, (f.o).margin_used::text, (f.o).position_id::text,
             (f.rest).trade_amount::text AS rest_amount, (f.rest).lots::text AS rest_lots, (f.rest).margin_used::text AS rest_margin,
             (f.rest).spread::text AS rest_spread
        FROM engine_partial_close(${a.id}, NULL, ${split.amount}, ${split.lots}, '0.01', ${c.now.bid}, ${c.now.ask}, 'manual', NULL, NULL) f`;
    const wantPart = fix(exact.positionPnl(c.side, split.amount, a.open, split.spread, c.xr, c.now.bid, c.now.ask));
    expect(p).toMatchObject({ status: 'ok', pro_loss: wantPart, margin_used: fix(split.margin), position_id: a.id });
    expect({ amount: dec(p.rest_amount).toString(), lots: dec(p.rest_lots).toString(), margin: fix(p.rest_margin), spread: fix(p.rest_spread) })
      .toEqual({ amount: dec(split.rest.amount).toString(), lots: dec(split.rest.lots!).toString(), margin: fix(split.rest.margin), spread: fix(split.rest.spread) });
    await sql`SELECT 1 FROM engine_close_order(${a.id}, NULL, ${c.now.bid}, ${c.now.ask}, 'manual', NULL, NULL)`;

    // B: the same as two positions (the part's and the rest's figures) closed one by one
    const b1 = await position(c, split.lots!, split.spread, split.margin);
    const [{ balance_id: bb }] = await sql<{ balance_id: string }[]>`SELECT balance_id::text FROM orders WHERE id = ${b1.id}`;
    const [b2] = await sql<{ id: string }[]>`
      INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, lots, open_rate, exchange_rate, spread, margin_used, leverage)
      SELECT user_id, balance_id, instrument_id, type, kind, ${split.rest.amount}, ${split.rest.lots}, open_rate, exchange_rate,
             ${split.rest.spread}, ${split.rest.margin}, leverage FROM orders WHERE id = ${b1.id}
      RETURNING id::text`;
    await sql`UPDATE balances SET margin = margin + ${split.rest.margin} WHERE id = ${bb}`;
    await sql`SELECT 1 FROM engine_close_order(${b1.id}, NULL, ${c.now.bid}, ${c.now.ask}, 'manual', NULL, NULL)`;
    await sql`SELECT 1 FROM engine_close_order(${b2.id}, NULL, ${c.now.bid}, ${c.now.ask}, 'manual', NULL, NULL)`;

    const ledger = async (balanceId: number | string) => sql<{ kind: string; amount: string; balance_after: string }[]>`
      SELECT kind::text, amount::text, balance_after::text FROM ledger_entries WHERE balance_id = ${balanceId} AND kind <> 'deposit' ORDER BY id`;
    const wallet = async (balanceId: number | string) => (await sql<{ balance: string; margin: string }[]>`
      SELECT balance::text, margin::text FROM balances WHERE id = ${balanceId}`)[0];
    expect(await ledger(a.balanceId)).toEqual(await ledger(bb));
    expect(await wallet(a.balanceId)).toEqual(await wallet(bb));
    expect((await wallet(a.balanceId)).margin).toBe('0.00000000');
  });

  test("the rest below the smallest lot, or the whole position: refused, nothing written", async () => {
    const c = CASES.find((x) => dec(x.lots).gte('0.02'))!;
    const f = figures(c);
    const a = await position(c, c.lots, f.spread, f.margin);
    const half = dec(c.lots).div(2).toDecimalPlaces(2, 1).toFixed();
    const units = (l: string) => exact.lotsToUnits(c.category, l).toString();
    const call = (lots: string, min: string) => sql<{ status: string }[]>`
      SELECT status FROM engine_partial_close(${a.id}, NULL, ${units(lots)}, ${lots}, ${min}, ${c.now.bid}, ${c.now.ask}, 'manual', NULL, NULL)`;
    expect((await call(half, c.lots))[0].status).toBe('remainder');
    expect((await call(c.lots, '0.01'))[0].status).toBe('too_large');
    expect(await sql`SELECT 1 FROM orders WHERE position_id = ${a.id}`).toHaveLength(0);
    expect(await sql`SELECT 1 FROM ledger_entries WHERE balance_id = ${a.balanceId} AND kind <> 'deposit'`).toHaveLength(0);
    // the domain says the same before any statement
    const p = { category: c.category, trade_amount: units(c.lots), lots: c.lots, spread: f.spread, margin_used: f.margin };
    expect(partialSplit(p, c.lots)).toMatchObject({ ok: false, message: `Lots must be less than the position's ${dec(c.lots).toFixed()}` });
    expect(partialSplit(p, '0.015')).toMatchObject({ ok: false, message: 'Lots must be a multiple of 0.01' });
    expect(partialSplit(p, '0')).toMatchObject({ ok: false, message: 'Lots must be greater than 0' });
  });
});

describe('partial close through the engine', () => {
  let E: TestEngine, BTC: TestInstrument;
  beforeAll(async () => {
    ({ E, BTC } = await cryptoEngine(sql));
    await sql`INSERT INTO lot_settings (category, state) VALUES ('crypto', 'lot') ON CONFLICT (category) DO UPDATE SET state = 'lot'`;
  });
  afterAll(async () => {
    await sql`UPDATE lot_settings SET state = 'amount' WHERE category = 'crypto'`;
    await E.stop();
  });

  test('half a position: the part is a closed order linked to it; ledger, margin and the evaluator follow', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const placed = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, lots: '2' });
    expect(placed.status).toBe(201);
    const id = placed.body.order.id;
    await E.quote(BTC.name, 110, 111);
    expect(E.core.risk.position(id)!.amount).toBe(2);

    const r = await E.call('POST', `/orders/${id}/close`, { userId: u.userId, quantity: '0.5' });
    expect(r.status).toBe(200);
    expect(r.body.order).toMatchObject({ position_id: id, trade_amount: '0.50000000', lots: '0.50000000', close_rate: '111.0000000000',
      pro_loss: '5.00000000', margin_used: '5.05000000', close_reason: 'manual' });
    expect(r.body.position).toMatchObject({ id, trade_amount: '1.50000000', lots: '1.50000000', margin_used: '15.15000000', close_time: null });
    const [b] = await sql<{ balance: string; margin: string }[]>`SELECT balance::text, margin::text FROM balances WHERE id = ${u.balanceId}`;
    expect(b).toEqual({ balance: '1005.00000000', margin: '15.15000000' });
    const [le] = await sql<{ amount: string; ref_id: string }[]>`
      SELECT amount::text, ref_id FROM ledger_entries WHERE balance_id = ${u.balanceId} AND kind = 'trade_pnl'`;
    expect(le).toEqual({ amount: '5.00000000', ref_id: String(r.body.order.id) });
    // the evaluator holds the smaller position: exposure and stop-out level of 1.5 lots
    const held = E.core.risk.position(id)!;
    expect({ amount: held.amount, margin: held.margin }).toEqual({ amount: 1.5, margin: 15.15 });
    // (margin and spread shrink with the amount, so the stop-out price is the same as before)
    expect(float.stopOutLevel('buy', held.amount, held.open, held.spread, 1, held.margin, held.stopout)).toBeCloseTo(float.stopOutLevel('buy', 2, 101, 0, 1, 20.2, 50), 9);
    expect(E.core.risk.floatingPnl(u.balanceId)).toBeCloseTo(1.5 * (111 - 101), 9);

    // the rest closes whole; the two closed rows sum to the whole position's P/L
    const rest = await E.call('POST', `/orders/${id}/close`, { userId: u.userId });
    expect(rest.body.order.pro_loss).toBe('15.00000000');
    expect(E.core.risk.position(id)).toBeUndefined();
  });

  test('refusals change nothing and say why', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const id = (await E.call('POST', '/orders', { userId: u.userId, type: 'sell', instrument: BTC.name, lots: '1' })).body.order.id;
    const tries: [unknown, string][] = [
      ['1', "Lots must be less than the position's 1"], ['0.995', 'Lots must be a multiple of 0.01'],
      ['0.015', 'Lots must be a multiple of 0.01'], ['abc', 'Lots must be a number like 12.5'], ['0', 'Lots must be greater than 0'],
    ];
    for (const [q, msg] of tries) {
      const r = await E.call('POST', `/orders/${id}/close`, { userId: u.userId, quantity: q });
      expect(r.status).toBe(422);
      expect(r.body.message).toBe(msg);
    }
    const other = await createUser(sql, { deposit: '10' });
    expect((await E.call('POST', `/orders/${id}/close`, { userId: other.userId, quantity: '0.5' })).status).toBe(404);
    expect(await sql`SELECT 1 FROM orders WHERE position_id = ${id}`).toHaveLength(0);
    const [o] = await sql<{ lots: string }[]>`SELECT lots::text FROM orders WHERE id = ${id}`;
    expect(o.lots).toBe('1.00000000');
  });

  test('staff force-close part of a position: audited', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const staff = await createUser(sql, { role: 1 });
    const id = (await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, lots: '1' })).body.order.id;
    const r = await E.call('POST', `/admin/orders/${id}/close`, { actorId: staff.userId, ip: '10.0.0.1', quantity: '0.25' });
    expect(r.status).toBe(200);
    expect(r.body.order).toMatchObject({ close_reason: 'admin', closed_by: staff.userId, lots: '0.25000000', position_id: id });
    const [a] = await sql<{ action: string; after: Record<string, string> }[]>`
      SELECT action, after FROM audit_events WHERE target_kind = 'order' AND target_id = ${String(id)} AND actor_id = ${staff.userId}`;
    expect(a.action).toBe('order.partial_close');
    expect(a.after).toMatchObject({ part_id: String(r.body.order.id), lots: '0.75000000' });
  });

  test('a position in units closes part of its amount', async () => {
    await sql`UPDATE lot_settings SET state = 'amount' WHERE category = 'crypto'`;
    try {
      const u = await createUser(sql, { deposit: '1000' });
      const id = (await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: '3' })).body.order.id;
      const r = await E.call('POST', `/orders/${id}/close`, { userId: u.userId, quantity: '1.25' });
      expect(r.body.position).toMatchObject({ trade_amount: '1.75000000', lots: null });
      expect((await E.call('POST', `/orders/${id}/close`, { userId: u.userId, quantity: '1.75' })).body.message).toBe("Amount must be less than the position's 1.75");
    } finally {
      await sql`UPDATE lot_settings SET state = 'lot' WHERE category = 'crypto'`;
    }
  });
});
