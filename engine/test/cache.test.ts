// Staff changes reach the engine's caches without a restart (engine_cache LISTEN/NOTIFY):
// plan and stop-out values, a user's plan, instruments; and the cached place context never
// decides on stale data.
import { describe, expect, test, beforeAll, afterAll } from 'bun:test';
import { db, createUser, createInstrument, uniq, within, cryptoEngine, type TestEngine, type TestInstrument } from './helpers.ts';
import { Simulator } from '../src/feed/simulator.ts';
import type { Instrument } from '../src/book/book.ts';

const sql = db(20);
let E: TestEngine, BTC: TestInstrument;
beforeAll(async () => ({ E, BTC } = await cryptoEngine(sql)));
afterAll(async () => { await E.stop(); await sql.end(); });


const plan = async (values: Record<string, number | null>) => {
  const [p] = await sql<{ id: bigint }[]>`INSERT INTO pricing_plans ${sql({ name: uniq('plan'), ...values })} RETURNING id`;
  return Number(p.id);
};

describe('plans and stop-out', () => {
  test("a plan's stop-out edit, a user's plan change and a removed plan move open positions' thresholds within a second", async () => {
    const p1 = await plan({ crypto_stopout: 30 });
    const p2 = await plan({ crypto_stopout: 20 });
    const u = await createUser(sql, { deposit: '1000', planId: p1 });
    const r = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 });
    expect(r.status).toBe(201);
    const id = r.body.order.id;
    const stopout = () => E.core.risk.position(id)?.stopout;
    expect(stopout()).toBe(30);

    await sql`UPDATE pricing_plans SET crypto_stopout = 70 WHERE id = ${p1}`;
    await within(1000, () => stopout() === 70);
    await sql`UPDATE users SET pricing_plan_id = ${p2} WHERE id = ${u.userId}`;
    await within(1000, () => stopout() === 20);
    await sql`DELETE FROM pricing_plans WHERE id = ${p2}`; // users.pricing_plan_id → null: the default
    await within(1000, () => stopout() === 50);
  });

  test("a plan subscription re-margins open positions at the plan's leverage: the balance's used margin and the risk index follow", async () => {
    const p = await plan({ crypto_leverage: 50, crypto_stopout: 40 });
    const u = await createUser(sql, { deposit: '1000' });
    // no plan: the instrument's leverage 10; margin 10 × 101 / 10
    const r = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 10 });
    expect(r.body.order).toMatchObject({ leverage: 10, margin_used: '101.00000000' });
    const id = r.body.order.id;
    expect(E.core.risk.position(id)).toMatchObject({ margin: 101, stopout: 50 });
    // what the web's subscription does in one transaction (web/app/modules/pricing/pricing.server.ts)
    await sql.begin(async (tx) => {
      await tx`UPDATE users SET pricing_plan_id = ${p} WHERE id = ${u.userId}`;
      const changed = await tx<{ balance_id: bigint; positions: number; margin_delta: string }[]>`SELECT * FROM apply_plan_leverage(${u.userId})`;
      expect(changed.map((c) => ({ balance_id: Number(c.balance_id), positions: c.positions, margin_delta: c.margin_delta }))).toEqual([{ balance_id: u.balanceId, positions: 1, margin_delta: '-80.80000000' }]);
    });
    const [o] = await sql`SELECT leverage, margin_used FROM orders WHERE id = ${id}`;
    expect(o).toMatchObject({ leverage: 50, margin_used: '20.20000000' });
    const [b] = await sql`SELECT margin FROM balances WHERE id = ${u.balanceId}`;
    expect(b.margin).toBe('20.20000000');
    await within(1000, () => E.core.risk.position(id)?.margin === 20.2 && E.core.risk.position(id)?.stopout === 40);
    // closing releases exactly what is held
    expect((await E.call('POST', `/orders/${id}/close`, { userId: u.userId })).status).toBe(200);
    const [after] = await sql`SELECT margin FROM balances WHERE id = ${u.balanceId}`;
    expect(after.margin).toBe('0.00000000');
  });

  test('the stop-out acts at the new threshold', async () => {
    const p = await plan({ crypto_stopout: 90 });
    const u = await createUser(sql, { deposit: '1000', planId: p });
    const inst = await createInstrument(sql, { leverage: 10 });
    await within(1000, () => E.core.book.instruments.has(inst.name));
    await E.quote(inst.name, 100, 101);
    // margin 101 (10 × 101 / 10); at ask 95 the loss is 60, −59 % of the margin
    const r = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: inst.name, amount: 10 });
    await E.quote(inst.name, 94, 95);
    expect(E.core.risk.position(r.body.order.id)).toBeDefined();
    await sql`UPDATE pricing_plans SET crypto_stopout = 50 WHERE id = ${p}`;
    // re-indexed at 50 %, the position is past its level: closed without waiting for a tick
    await within(1000, async () => (await sql`SELECT close_reason FROM orders WHERE id = ${r.body.order.id}`)[0].close_reason === 'stop_out');
  });

  test('a place on a cached context follows plan leverage, KYC and tradable changes', async () => {
    const p = await plan({ crypto_leverage: 50 });
    const u = await createUser(sql, { deposit: '1000', planId: p });
    const body = { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 10 };
    expect((await E.call('POST', '/orders', body)).body.order).toMatchObject({ leverage: 50, margin_used: '20.20000000' });
    // the fingerprint catches a change even before (or without) the notification
    await sql`UPDATE pricing_plans SET crypto_leverage = 20 WHERE id = ${p}`;
    expect((await E.call('POST', '/orders', body)).body.order).toMatchObject({ leverage: 20, margin_used: '50.50000000' });
    await sql`INSERT INTO site_settings (key, value) VALUES ('kyc', ${sql.json({ deposit: 'off', withdraw: 'off', trade: 'on' })})
              ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    try {
      expect((await E.call('POST', '/orders', body)).body.message).toBe('Please verify KYC to enable trading.');
    } finally {
      await sql`DELETE FROM site_settings WHERE key = 'kyc'`;
    }
    expect((await E.call('POST', '/orders', body)).status).toBe(201);
    await sql`UPDATE users SET is_active = false WHERE id = ${u.userId}`;
    expect((await E.call('POST', '/orders', body)).body.message).toBe('Account is inactive');
  });
});

describe('instruments', () => {
  test('added, edited and deleted by staff: the book and orders follow within a second', async () => {
    const name = `${uniq('N')}_USD`;
    const [row] = await sql<{ id: bigint }[]>`
      INSERT INTO instruments (name, base, quote, category, leverage, bids, asks) VALUES (${name}, 'N', 'USD', 'crypto', 5, 10, 10.1) RETURNING id`;
    const id = Number(row.id);
    await within(1000, () => E.core.book.instruments.has(name));
    expect(E.core.book.quote(name)).toMatchObject({ bid: 10, ask: 10.1, stale: true }); // its stored quote: shown, not traded on
    const u = await createUser(sql, { deposit: '1000' });
    expect((await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: name, amount: 10 })).body.message).toBe(`No price for ${name} yet`);
    await E.quote(name, 10, 10.1); // the feed's first tick
    const placed = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: name, amount: 10 });
    expect(placed.body.order).toMatchObject({ leverage: 5, margin_used: '20.20000000' });

    await sql`UPDATE instruments SET tradable = false WHERE id = ${id}`;
    await within(1000, () => E.core.book.byId.get(id)?.tradable === false);
    expect((await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: name, amount: 1 })).body.message).toBe('This instrument is not tradable');

    await sql`UPDATE instruments SET tradable = true, leverage = 20, category = 'stock' WHERE id = ${id}`;
    await within(1000, () => E.core.book.byId.get(id)?.category === 'stock' && E.core.book.byId.get(id)?.leverage === 20);
    // the open position is still watched by the risk index under the same instrument id
    expect(E.core.risk.position(placed.body.order.id)?.instrumentId).toBe(id);

    const other = await createInstrument(sql);
    await within(1000, () => E.core.book.instruments.has(other.name));
    await E.quote(other.name, 1, 1.1);
    await sql`DELETE FROM instruments WHERE id = ${other.id}`;
    await within(1000, () => !E.core.book.instruments.has(other.name));
    expect(E.core.book.quote(other.name)).toBeUndefined();
    expect((await E.call('GET', '/quotes')).body.quotes.map((q: { name: string }) => q.name)).not.toContain(other.name);
  });

  test('the simulator follows the list: new instruments tick, edited ones keep walking, deleted ones stop', () => {
    const inst = (id: number, name: string, category: Instrument['category'] = 'crypto'): Instrument =>
      ({ id, name, base: name.split('_')[0], quote: 'USD', category, tradable: true, leverage: 10, digits: 2 });
    const sunday = new Date('2024-11-24T23:00:00Z').getTime(); // every market open
    const sim = new Simulator({ instruments: [inst(1, 'A_USD'), inst(2, 'B_USD')], seed: 7 });
    expect(sim.step(sunday).map((t) => t.symbol)).toEqual(['A_USD', 'B_USD']);
    sim.setInstruments([inst(1, 'A_USD', 'forex'), inst(3, 'C_USD')], new Map([['C_USD', 42]]));
    const ticks = sim.step(sunday);
    expect(ticks.map((t) => t.symbol)).toEqual(['A_USD', 'C_USD']);
    expect(Math.abs(ticks[1].bid - 42) / 42).toBeLessThan(0.01);
    expect(sim.instruments().find((i) => i.id === 1)?.category).toBe('forex');
  });
});

describe('accounts', () => {
  test('an unknown balance is 404 with a message', async () => {
    expect(await E.call('GET', '/accounts/999999999')).toEqual({ status: 404, body: { message: 'Balance not found' } });
    const u = await createUser(sql, { deposit: '10' });
    const r = await E.call('GET', `/accounts/${u.balanceId}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ balanceId: u.balanceId, balance: '10.00000000' });
  });
});
