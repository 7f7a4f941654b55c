// Orders against real PostgreSQL: place, refuse, close, modify, staff actions, races, risk.
import { describe, expect, test, beforeAll, afterAll } from 'bun:test';
import { db, createUser, createInstrument, engine, uniq, cryptoEngine, type TestEngine, type TestInstrument } from './helpers.ts';
import { closeOrder } from '../src/orders/service.ts';

const sql = db(60);
let E: TestEngine, BTC: TestInstrument;
beforeAll(async () => ({ E, BTC } = await cryptoEngine(sql)));
afterAll(async () => { await E.stop(); await sql.end(); });

const ledger = (balanceId: number) => sql<{ kind: string; amount: string; ref_id: string }[]>`
  SELECT kind, amount, ref_id FROM ledger_entries WHERE balance_id = ${balanceId} ORDER BY id`;
const balance = async (balanceId: number) => (await sql<{ balance: string; margin: string }[]>`SELECT balance, margin FROM balances WHERE id = ${balanceId}`)[0];

describe('place', () => {
  test('a market buy fills at the ask, reserves margin, and is idempotent', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const key = uniq('idem');
    const body = { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 10, idempotencyKey: key };
    const r = await E.call('POST', '/orders', body);
    expect(r.status).toBe(201);
    expect(r.body.order).toMatchObject({ type: 'buy', open_rate: '101.0000000000', margin_used: '101.00000000', leverage: 10, spread: '0.00000000' });
    const again = await E.call('POST', '/orders', body);
    expect(again.status).toBe(200);
    expect(again.body.order.id).toBe(r.body.order.id);
    expect(await balance(u.balanceId)).toEqual({ balance: '1000.00000000', margin: '101.00000000' });
    expect(E.core.risk.position(r.body.order.id)).toBeDefined();
  });

  test('a sell fills at the bid, with the spread setting charged', async () => {
    const inst = await createInstrument(sql, { category: 'stock', leverage: 5 });
    await sql`INSERT INTO spreads (category, value) VALUES ('crypto', 0.5) ON CONFLICT (category) DO UPDATE SET value = 0.5`;
    try {
      const u = await createUser(sql, { deposit: '1000' });
      const r = await E.call('POST', '/orders', { userId: u.userId, type: 'sell', instrument: BTC.name, amount: 2 });
      expect(r.status).toBe(201);
      // spread = (101 − 100) × 0.5 × 2
      expect(r.body.order).toMatchObject({ open_rate: '100.0000000000', spread: '1.00000000', margin_used: '20.00000000' });
    } finally {
      await sql`UPDATE spreads SET value = 0 WHERE category = 'crypto'`;
    }
    expect(inst.id).toBeGreaterThan(0);
  });

  test.each([
    ['amount 0', { amount: 0 }, 422, 'Amount must be greater than 0'],
    ['negative amount', { amount: -1 }, 422, 'Amount must be greater than 0'],
    ['margin over the balance', { amount: 200 }, 422, 'Insufficient Balance!'],
    ['buy take-profit below the ask', { amount: 1, profit: 100.5 }, 422, 'Take profit must be at or above the ask (101)'],
    ['buy stop-loss above the ask', { amount: 1, loss: 102 }, 422, 'Stop loss must be between 0 and the ask (101)'],
  ])('refused: %s', async (_, extra, status, message) => {
    const u = await createUser(sql, { deposit: '1000' });
    const r = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, ...extra });
    expect(r.status).toBe(status);
    expect(r.body.message).toBe(message);
    expect(await balance(u.balanceId)).toEqual({ balance: '1000.00000000', margin: '0.00000000' });
  });

  test("refused: 'Insufficient Free Margin!' when margin is already used", async () => {
    const u = await createUser(sql, { deposit: '1000' });
    expect((await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 60 })).status).toBe(201);
    const r = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 60 });
    expect(r.body).toEqual({ message: 'Insufficient Free Margin!', code: 'insufficient_free_margin' });
  });

  test('refused: not tradable, unknown instrument, market closed, KYC', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const off = await createInstrument(sql, { tradable: false });
    await E.core.reloadInstruments();
    await E.quote(off.name, 1, 1.1);
    expect((await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: off.name, amount: 1 })).body.message).toBe('This instrument is not tradable');
    expect((await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: 'NOPE_X', amount: 1 })).status).toBe(404);

    const saturday = await engine(sql, { now: () => new Date('2024-11-23T12:00:00Z') });
    const fx = await createInstrument(sql, { category: 'forex' });
    await saturday.core.reloadInstruments();
    await saturday.quote(fx.name, 1, 1.0001);
    const r = await saturday.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: fx.name, amount: 1 });
    expect(r.body.message).toBe('Market is closed');
    await saturday.stop();

    await sql`INSERT INTO site_settings (key, value) VALUES ('kyc', ${sql.json({ deposit: 'off', withdraw: 'off', trade: 'on' })})
              ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    try {
      const k = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 });
      expect(k).toEqual({ status: 403, body: { message: 'Please verify KYC to enable trading.', code: 'kyc_required' } });
      await sql`INSERT INTO kyc_documents (user_id, status) VALUES (${u.userId}, 'approved')`;
      expect((await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 })).status).toBe(201);
    } finally {
      await sql`DELETE FROM site_settings WHERE key = 'kyc'`;
    }
  });

  test('by lots when the category is in lot state', async () => {
    await sql`INSERT INTO lot_settings (category, state) VALUES ('crypto', 'lot') ON CONFLICT (category) DO UPDATE SET state = 'lot'`;
    try {
      const u = await createUser(sql, { deposit: '1000' });
      expect((await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 })).body.message).toBe('Lots is required');
      const r = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, lots: 0.5 });
      expect(r.body.order).toMatchObject({ trade_amount: '0.50000000', lots: '0.50000000' });
      // below the smallest lot (0.01): refused naming it, nothing placed
      const tiny = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, lots: '0.0001' });
      expect(tiny.status).toBe(422);
      expect(tiny.body).toEqual({ code: 'invalid_amount', message: 'Lots must be at least 0.01' });
      expect((await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, lots: '0.01' })).status).toBe(201);
      expect(await sql`SELECT 1 FROM orders WHERE user_id = ${u.userId}`).toHaveLength(2);
    } finally {
      await sql`UPDATE lot_settings SET state = 'amount' WHERE category = 'crypto'`;
    }
  });

  test('the plan leverage wins over the instrument leverage', async () => {
    const [p] = await sql<{ id: bigint }[]>`INSERT INTO pricing_plans (name, crypto_leverage, crypto_stopout) VALUES (${uniq('plan')}, 50, 30) RETURNING id`;
    const u = await createUser(sql, { deposit: '1000', planId: Number(p.id) });
    const r = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 10 });
    expect(r.body.order).toMatchObject({ leverage: 50, margin_used: '20.20000000' });
    expect(E.core.risk.position(r.body.order.id)!.stopout).toBe(30);
  });

  test('50 concurrent orders on one balance never exceed its free margin', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    // each needs 101 margin: at most 9 fit in 1000
    const rs = await Promise.all(Array.from({ length: 50 }, () =>
      E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 10 })));
    const ok = rs.filter((r) => r.status === 201).length;
    expect(ok).toBe(9);
    expect(rs.filter((r) => r.status !== 201).every((r) => ['Insufficient Free Margin!', 'Insufficient Balance!'].includes(r.body.message))).toBe(true);
    const b = await balance(u.balanceId);
    expect(b.margin).toBe('909.00000000');
    const [{ sum }] = await sql`SELECT sum(margin_used) FROM orders WHERE balance_id = ${u.balanceId} AND close_time IS NULL`;
    expect(Number(sum)).toBe(909);
  });
});

describe('close', () => {
  test('manual close posts the realised P/L through the ledger and releases margin, once', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const inst = await createInstrument(sql);
    await E.core.reloadInstruments();
    await E.quote(inst.name, 100, 101);
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: inst.name, amount: 3 });
    await E.quote(inst.name, 110.1, 110.2);
    const other = await createUser(sql);
    expect((await E.call('POST', `/orders/${body.order.id}/close`, { userId: other.userId })).status).toBe(404);
    const c = await E.call('POST', `/orders/${body.order.id}/close`, { userId: u.userId });
    expect(c.status).toBe(200);
    // buy marks at the ask: 3 × (110.2 − 101) = 27.6
    expect(c.body.order).toMatchObject({ close_rate: '110.2000000000', pro_loss: '27.60000000', close_reason: 'manual' });
    expect(await balance(u.balanceId)).toEqual({ balance: '1027.60000000', margin: '0.00000000' });
    const again = await E.call('POST', `/orders/${body.order.id}/close`, { userId: u.userId });
    expect(again).toEqual({ status: 409, body: { message: 'Order is already closed', code: 'already_closed' } });
    expect((await ledger(u.balanceId)).filter((l) => l.kind === 'trade_pnl')).toEqual([{ kind: 'trade_pnl', amount: '27.60000000', ref_id: String(body.order.id) }]);
  });

  test('two engines racing to close one order close it once', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'sell', instrument: BTC.name, amount: 1 });
    const other = await engine(sql);
    await other.quote(BTC.name, 99, 99.5);
    await E.quote(BTC.name, 99, 99.5);
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => closeOrder(E.core.orders, { orderId: body.order.id, reason: 'manual' })),
      ...Array.from({ length: 5 }, () => closeOrder(other.core.orders, { orderId: body.order.id, reason: 'tp' })),
    ]);
    expect(results.filter((r) => r.ok).length).toBe(1);
    expect(results.filter((r) => !r.ok && r.code === 'already_closed').length).toBe(9);
    const entries = (await ledger(u.balanceId)).filter((l) => l.kind === 'trade_pnl');
    expect(entries).toEqual([{ kind: 'trade_pnl', amount: '1.00000000', ref_id: String(body.order.id) }]);
    await other.stop();
    await E.quote(BTC.name, 100, 101);
  });
});

describe('modify', () => {
  test('take-profit and stop-loss bounds against the open rate', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 });
    const id = body.order.id;
    expect((await E.call('PATCH', `/orders/${id}`, { userId: u.userId, profit: 100 })).body.message).toBe('Take profit must be at or above the open rate (101.0000000000)');
    expect((await E.call('PATCH', `/orders/${id}`, { userId: u.userId, loss: 102 })).body.message).toBe('Stop loss must be between 0 and the open rate (101.0000000000)');
    const ok = await E.call('PATCH', `/orders/${id}`, { userId: u.userId, profit: 120, loss: 90 });
    expect(ok.body.order).toMatchObject({ profit: '120.0000000000', loss: '90.0000000000' });
    const cleared = await E.call('PATCH', `/orders/${id}`, { userId: u.userId, loss: null });
    expect(cleared.body.order).toMatchObject({ profit: '120.0000000000', loss: null });
    expect(E.core.risk.position(id)).toMatchObject({ tp: 120, sl: null });
  });

  test('a stop-loss or take-profit the price has already reached is refused, with the reason, and nothing changes', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 });
    const id = body.order.id; // opened at the ask, 101
    try {
      await E.quote(BTC.name, 95, 96); // the position is losing: a stop-loss at the open rate would close it at once
      const r = await E.call('PATCH', `/orders/${id}`, { userId: u.userId, loss: 101 });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ code: 'bad_stop_loss', message: 'Stop loss must be below the current price (96): it would close the position at once' });
      expect((await E.call('PATCH', `/orders/${id}`, { userId: u.userId, loss: 96 })).status).toBe(422);
      const [o] = await sql`SELECT loss, close_time FROM orders WHERE id = ${id}`;
      expect(o).toEqual({ loss: null, close_time: null });
      const ok = await E.call('PATCH', `/orders/${id}`, { userId: u.userId, loss: 95.5 });
      expect(ok.status).toBe(200);
      await E.quote(BTC.name, 110, 111);
      const tp = await E.call('PATCH', `/orders/${id}`, { userId: u.userId, profit: 105 });
      expect(tp.body.message).toBe('Take profit must be above the current price (111): it would close the position at once');
    } finally {
      await E.quote(BTC.name, 100, 101);
    }
  });

  test('placing with a take-profit at the ask is refused: it would close at once', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const r = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1, profit: 101 });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('Take profit must be above the current price (101): it would close the position at once');
    expect(await sql`SELECT 1 FROM orders WHERE user_id = ${u.userId}`).toHaveLength(0);
  });
});

describe('risk on ticks', () => {
  test('a crossed take-profit is closed by the engine within the tick', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const inst = await createInstrument(sql);
    await E.core.reloadInstruments();
    await E.quote(inst.name, 100, 101);
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: inst.name, amount: 1, profit: 105 });
    await E.quote(inst.name, 104.5, 104.9);
    expect((await sql`SELECT close_time FROM orders WHERE id = ${body.order.id}`)[0].close_time).toBeNull();
    await E.quote(inst.name, 104.9, 105);
    const [o] = await sql`SELECT close_reason, close_rate, pro_loss FROM orders WHERE id = ${body.order.id}`;
    expect(o).toEqual({ close_reason: 'tp', close_rate: '105.0000000000', pro_loss: '4.00000000' });
    // the customer finds it in their notifications even if no page was open
    let notes: { title: string; description: string; url: string; data: unknown }[] = [];
    for (let i = 0; i < 50 && !notes.length; i++) {
      notes = await sql`SELECT title, description, url, data FROM notifications WHERE user_id = ${u.userId}`;
      if (!notes.length) await Bun.sleep(20);
    }
    // the English text shows units without trailing zeros and the rate with the instrument's digits;
    // the values go along for the web to format in the reader's language
    const pair = inst.name.replace('_', '/');
    expect(notes).toEqual([{
      title: `Position #${body.order.id} closed: Take profit`, description: `Buy 1 ${pair} at 105.00000, P/L 4.00000`, url: '/dashboard',
      data: { kind: 'position.closed', id: body.order.id, reason: 'tp', side: 'buy', amount: '1', instrument: pair, rate: '105.0000000000', digits: 5, pnl: '4.00000000' },
    }]);
  });

  test('a customer closing their own position gets no notification', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const inst = await createInstrument(sql);
    await E.core.reloadInstruments();
    await E.quote(inst.name, 100, 101);
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: inst.name, amount: 1 });
    expect((await E.call('POST', `/orders/${body.order.id}/close`, { userId: u.userId })).status).toBe(200);
    await Bun.sleep(100);
    expect((await sql`SELECT 1 FROM notifications WHERE user_id = ${u.userId}`).length).toBe(0);
  });

  test('sell stop-loss on the bid', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const inst = await createInstrument(sql);
    await E.core.reloadInstruments();
    await E.quote(inst.name, 100, 101);
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'sell', instrument: inst.name, amount: 1, loss: 103 });
    await E.quote(inst.name, 102.9, 103.5);
    expect((await sql`SELECT close_reason FROM orders WHERE id = ${body.order.id}`)[0].close_reason).toBeNull();
    await E.quote(inst.name, 103, 103.5);
    expect((await sql`SELECT close_reason, pro_loss FROM orders WHERE id = ${body.order.id}`)[0]).toEqual({ close_reason: 'sl', pro_loss: '-3.00000000' });
  });

  test('per-position stop-out at −50% of its margin', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const inst = await createInstrument(sql, { leverage: 10 });
    await E.core.reloadInstruments();
    await E.quote(inst.name, 100, 100);
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: inst.name, amount: 1 });
    // margin 10: stop-out at P/L −5, ask 95
    await E.quote(inst.name, 95.01, 95.01);
    expect((await sql`SELECT close_reason FROM orders WHERE id = ${body.order.id}`)[0].close_reason).toBeNull();
    await E.quote(inst.name, 95, 95);
    expect((await sql`SELECT close_reason, pro_loss FROM orders WHERE id = ${body.order.id}`)[0]).toEqual({ close_reason: 'stop_out', pro_loss: '-5.00000000' });
  });

  test('a gap: the position stops out, the account reaches zero equity, the rest closes and the shortfall is written off', async () => {
    const [p] = await sql<{ id: bigint }[]>`INSERT INTO pricing_plans (name, crypto_stopout, crypto_leverage) VALUES (${uniq('plan')}, 100, 100) RETURNING id`;
    const u = await createUser(sql, { deposit: '100', planId: Number(p.id) });
    const a = await createInstrument(sql), b = await createInstrument(sql);
    await E.core.reloadInstruments();
    await E.quote(a.name, 100, 100);
    await E.quote(b.name, 100, 100);
    const o1 = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: a.name, amount: 10 }); // margin 10
    const o2 = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: b.name, amount: 10 }); // margin 10
    expect([o1.status, o2.status]).toEqual([201, 201]);
    await E.quote(a.name, 80, 80); // −200 in one tick: equity −100
    const rows = await sql`SELECT close_reason, pro_loss FROM orders WHERE balance_id = ${u.balanceId} ORDER BY id`;
    expect([...rows]).toEqual([{ close_reason: 'stop_out', pro_loss: '-200.00000000' }, { close_reason: 'zero_equity', pro_loss: '0.00000000' }]);
    expect(await balance(u.balanceId)).toEqual({ balance: '0.00000000', margin: '0.00000000' });
    expect((await ledger(u.balanceId)).map((l) => [l.kind, l.amount])).toEqual([
      ['deposit', '100.00000000'], ['trade_pnl', '-200.00000000'], ['write_off', '100.00000000'],
    ]);
  });

  test('zero equity across instruments closes every position of that balance only', async () => {
    const [p] = await sql<{ id: bigint }[]>`INSERT INTO pricing_plans (name, crypto_stopout, crypto_leverage) VALUES (${uniq('plan')}, 100, 2) RETURNING id`;
    const u = await createUser(sql, { deposit: '100', planId: Number(p.id) });
    const bystander = await createUser(sql, { deposit: '1000', planId: Number(p.id) });
    const a = await createInstrument(sql), b = await createInstrument(sql);
    await E.core.reloadInstruments();
    await E.quote(a.name, 10, 10);
    await E.quote(b.name, 10, 10);
    // margins 40 + 40; each stops out at a loss of 40, the account is gone at a loss of 100
    expect((await E.call('POST', '/orders', { userId: u.userId, type: 'sell', instrument: a.name, amount: 8 })).status).toBe(201);
    expect((await E.call('POST', '/orders', { userId: u.userId, type: 'sell', instrument: b.name, amount: 8 })).status).toBe(201);
    expect((await E.call('POST', '/orders', { userId: bystander.userId, type: 'sell', instrument: a.name, amount: 1 })).status).toBe(201);
    await E.quote(a.name, 14.9, 14.9); // −39.2
    await E.quote(b.name, 14.9, 14.9); // −39.2: equity 21.6, nothing closes
    expect((await sql`SELECT count(*)::int AS n FROM orders WHERE balance_id = ${u.balanceId} AND close_time IS NULL`)[0].n).toBe(2);
    expect(E.core.risk.equity(u.balanceId)).toBeCloseTo(21.6, 6);
    // a spread collapse on b is impossible here; a move of a by 0.05 stops nothing out per position … but a jump does
    expect((await sql`SELECT count(*)::int AS n FROM orders WHERE balance_id = ${bystander.balanceId} AND close_time IS NULL`)[0].n).toBe(1);
    // staff take 30 away (through the ledger, as web does): equity −8.4 reaches the engine by NOTIFY
    await sql`SELECT * FROM post_ledger(${u.balanceId}, -30, 'adjustment', 'test', ${uniq('adj')})`;
    const end = Date.now() + 3000;
    let open = 2;
    while (open > 0 && Date.now() < end) {
      await Bun.sleep(20);
      open = (await sql`SELECT count(*)::int AS n FROM orders WHERE balance_id = ${u.balanceId} AND close_time IS NULL`)[0].n;
    }
    const rows = await sql`SELECT close_reason, pro_loss FROM orders WHERE balance_id = ${u.balanceId} ORDER BY id`;
    expect(rows.map((r) => r.close_reason)).toEqual(['zero_equity', 'zero_equity']);
    expect(await balance(u.balanceId)).toEqual({ balance: '0.00000000', margin: '0.00000000' });
    expect((await ledger(u.balanceId)).filter((l) => l.kind === 'write_off').map((l) => l.amount)).toEqual(['8.40000000']);
    expect((await sql`SELECT count(*)::int AS n FROM orders WHERE balance_id = ${bystander.balanceId} AND close_time IS NULL`)[0].n).toBe(1);
  });
});

describe('staff', () => {
  test('edit, force close and delete are audited; close rate only on closed trades', async () => {
    const admin = await createUser(sql, { role: 1 });
    const u = await createUser(sql, { deposit: '1000' });
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 });
    const id = body.order.id;
    expect((await E.call('PUT', `/admin/orders/${id}`, { actorId: admin.userId, closeRate: 5 })).body.message).toBe('Open trades cannot have the close rate edited');
    const e1 = await E.call('PUT', `/admin/orders/${id}`, { actorId: admin.userId, ip: '10.0.0.1', profit: 150, spread: 0.5 });
    expect(e1.body.order).toMatchObject({ profit: '150.0000000000', spread: '0.50000000' });
    const fc = await E.call('POST', `/admin/orders/${id}/close`, { actorId: admin.userId });
    expect(fc.body.order).toMatchObject({ close_reason: 'admin', closed_by: admin.userId, pro_loss: '-0.50000000' });
    // editing a closed trade's close rate re-settles the difference through the ledger
    const e2 = await E.call('PUT', `/admin/orders/${id}`, { actorId: admin.userId, closeRate: 111 });
    expect(e2.body.order.pro_loss).toBe('9.50000000');
    expect((await balance(u.balanceId)).balance).toBe('1009.50000000');
    const d = await E.call('DELETE', `/admin/orders/${id}?actorId=${admin.userId}`);
    expect(d.status).toBe(200);
    const audits = await sql`SELECT action, ip FROM audit_events WHERE target_kind = 'order' AND target_id = ${String(id)} ORDER BY id`;
    expect(audits.map((a) => a.action)).toEqual(['order.edit', 'order.force_close', 'order.edit', 'order.delete']);
    expect(audits[0].ip).toBe('10.0.0.1');
  });

  test("an edit of a closed trade posts the P/L difference as a new ledger entry; the close's entry is never changed", async () => {
    const admin = await createUser(sql, { role: 1 });
    const u = await createUser(sql, { deposit: '1000' });
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 2 });
    const id = body.order.id;
    await E.quote(BTC.name, 98, 99);
    try {
      expect((await E.call('POST', `/admin/orders/${id}/close`, { actorId: admin.userId })).body.order.pro_loss).toBe('-4.00000000'); // bought at 101, closed at the ask 99
    } finally {
      await E.quote(BTC.name, 100, 101);
    }
    const closeEntry = (await sql`SELECT id, amount, balance_after FROM ledger_entries WHERE ref_kind = 'order' AND ref_id = ${String(id)}`)[0];
    expect(closeEntry.amount).toBe('-4.00000000');

    // close rate 105.5: (105.5 − 101) × 2 = 9, so +13 is posted
    const e1 = await E.call('PUT', `/admin/orders/${id}`, { actorId: admin.userId, ip: '10.1.2.3', closeRate: '105.5' });
    expect(e1.status).toBe(200);
    expect(e1.body.order.pro_loss).toBe('9.00000000');
    // open rate 100.25 and a spread of 0.5: (105.5 − 100.25) × 2 − 0.5 = 10, so +1 more
    const e2 = await E.call('PUT', `/admin/orders/${id}`, { actorId: admin.userId, openRate: '100.25', spread: '0.5' });
    expect(e2.body.order.pro_loss).toBe('10.00000000');
    // a level only: no P/L change, nothing posted
    expect((await E.call('PUT', `/admin/orders/${id}`, { actorId: admin.userId, loss: '90' })).status).toBe(200);

    const entries = await sql`SELECT id, kind, amount, ref_kind, balance_after FROM ledger_entries WHERE balance_id = ${u.balanceId} ORDER BY id`;
    expect(entries.map((e) => [e.kind, e.amount, e.ref_kind])).toEqual([
      ['deposit', '1000.00000000', 'test'],
      ['trade_pnl', '-4.00000000', 'order'],
      ['adjustment', '13.00000000', 'order_edit'],
      ['adjustment', '1.00000000', 'order_edit'],
    ]);
    // the close's own entry is as it was written (ledger_entries refuse UPDATE)
    expect((await sql`SELECT amount, balance_after FROM ledger_entries WHERE id = ${closeEntry.id}`)[0]).toEqual({ amount: closeEntry.amount, balance_after: closeEntry.balance_after });
    expect((await balance(u.balanceId)).balance).toBe('1010.00000000');
    // each correction names the edit's audit row, which holds the before and after values
    const audits = await sql`SELECT id, before, after, ip FROM audit_events WHERE action = 'order.edit' AND target_id = ${String(id)} ORDER BY id`;
    expect(audits).toHaveLength(3);
    expect(audits[0].before).toMatchObject({ close_rate: '99.0000000000', pro_loss: '-4.00000000' });
    expect(audits[0].after).toMatchObject({ close_rate: '105.5000000000', pro_loss: '9.00000000' });
    expect(audits[0].ip).toBe('10.1.2.3');
    const refs = await sql`SELECT ref_id FROM ledger_entries WHERE ref_kind = 'order_edit' AND balance_id = ${u.balanceId} ORDER BY id`;
    expect(refs.map((r) => r.ref_id)).toEqual([`${id}:${audits[0].id}`, `${id}:${audits[1].id}`]);
  });

  test('open time: without a zone it is UTC; a day that does not exist, a time after the close or a P/L too large is refused with nothing written', async () => {
    const admin = await createUser(sql, { role: 1 });
    const u = await createUser(sql, { deposit: '100000' });
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 100 });
    const id = body.order.id;
    const e = await E.call('PUT', `/admin/orders/${id}`, { actorId: admin.userId, openTime: '2024-05-06T07:08' });
    expect(e.body.order.created_at).toBe('2024-05-06T07:08:00.000Z');
    for (const bad of ['2024-02-30T10:00', '2024-05-06T24:00', '1969-12-31T23:59', 'yesterday', '2024-05-06']) {
      const r = await E.call('PUT', `/admin/orders/${id}`, { actorId: admin.userId, openTime: bad });
      expect([r.status, r.body.message]).toEqual([400, 'Invalid open time']);
    }
    await E.call('POST', `/admin/orders/${id}/close`, { actorId: admin.userId });
    const [closed] = await sql`SELECT close_time, pro_loss::text AS pnl FROM orders WHERE id = ${id}`;
    const after = new Date(closed.close_time.getTime() + 60_000).toISOString();
    expect((await E.call('PUT', `/admin/orders/${id}`, { actorId: admin.userId, openTime: after })).body.message).toBe('Open time must be before the close time');
    // 100 × (99,999,999,999,999 − 101) does not fit numeric(24, 8)
    const huge = await E.call('PUT', `/admin/orders/${id}`, { actorId: admin.userId, closeRate: '99999999999999' });
    expect([huge.status, huge.body.message]).toEqual([400, 'The profit/loss of these rates is too large']);
    expect((await sql`SELECT pro_loss::text AS pnl FROM orders WHERE id = ${id}`)[0].pnl).toBe(closed.pnl);
    expect((await sql`SELECT count(*)::int AS n FROM audit_events WHERE action = 'order.edit' AND target_id = ${String(id)}`)[0].n).toBe(1);
  });

  test("a staff edit meets the customer's level rules on an open trade: the bound named, nothing changed, the position kept", async () => {
    const admin = await createUser(sql, { role: 1 });
    const u = await createUser(sql, { deposit: '1000' });
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 });
    const id = body.order.id; // a buy opened at the ask, 101
    const put = (extra: object) => E.call('PUT', `/admin/orders/${id}`, { actorId: admin.userId, ...extra });
    const wrong = await put({ loss: 150 }); // a buy's stop-loss above the price: it would close at once
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual({ code: 'bad_stop_loss', message: 'Stop loss must be between 0 and the open rate (101.0000000000)' });
    expect((await put({ profit: 90 })).body.message).toBe('Take profit must be at or above the open rate (101.0000000000)');
    try {
      await E.quote(BTC.name, 95, 96); // within the open-rate bound but already reached by the price
      expect((await put({ loss: 100 })).body.message).toBe('Stop loss must be below the current price (96): it would close the position at once');
    } finally {
      await E.quote(BTC.name, 100, 101);
    }
    // moving the open rate re-checks the levels already set against it
    expect((await put({ loss: 99 })).status).toBe(200);
    expect((await put({ openRate: 98 })).body.message).toBe('Stop loss must be between 0 and the open rate (98)');
    const [o] = await sql`SELECT open_rate, loss, close_time FROM orders WHERE id = ${id}`;
    expect(o).toEqual({ open_rate: '101.0000000000', loss: '99.0000000000', close_time: null });
    expect(E.core.risk.position(id)).toBeDefined();
    // a closed trade's levels no longer act: they are not bound
    await E.call('POST', `/admin/orders/${id}/close`, { actorId: admin.userId });
    expect((await put({ loss: 150 })).status).toBe(200);
  });

  test('deleting an open trade releases its margin', async () => {
    const admin = await createUser(sql, { role: 1 });
    const u = await createUser(sql, { deposit: '1000' });
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 });
    expect((await balance(u.balanceId)).margin).toBe('10.10000000');
    await E.call('DELETE', `/admin/orders/${body.order.id}?actorId=${admin.userId}`);
    expect((await balance(u.balanceId)).margin).toBe('0.00000000');
    expect(E.core.risk.position(body.order.id)).toBeUndefined();
  });

  test('internal calls need the shared secret', async () => {
    const r = await E.call('POST', '/orders', { userId: 1, type: 'buy', instrument: BTC.name, amount: 1 }, { 'x-engine-secret': 'wrong' });
    expect(r).toEqual({ status: 401, body: { message: 'Unauthorized' } });
  });
});

describe('restart', () => {
  test('a new core rebuilds open positions from PostgreSQL and acts on them', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const inst = await createInstrument(sql);
    await E.core.reloadInstruments();
    await E.quote(inst.name, 100, 101);
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: inst.name, amount: 1, profit: 110 });
    await E.core.flush();
    const fresh = await engine(sql);
    expect(fresh.core.risk.position(body.order.id)).toMatchObject({ tp: 110, accountId: u.balanceId });
    expect(fresh.core.risk.equity(u.balanceId)).toBeCloseTo(1000, 6);
    await fresh.quote(inst.name, 110, 110);
    expect((await sql`SELECT close_reason FROM orders WHERE id = ${body.order.id}`)[0].close_reason).toBe('tp');
    await fresh.stop();
  });

  test('a deposit made elsewhere reaches the engine through LISTEN/NOTIFY', async () => {
    const u = await createUser(sql, { deposit: '10' });
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 0.5 });
    expect(body.order).toBeDefined();
    await sql`SELECT * FROM post_ledger(${u.balanceId}, 500, 'deposit', 'test', ${uniq('d')})`;
    const t0 = Date.now();
    while (E.core.risk.equity(u.balanceId) < 500 && Date.now() < t0 + 3000) await Bun.sleep(10);
    console.log(`[listen] balance change reached the engine in ${Date.now() - t0} ms`);
    expect(E.core.risk.equity(u.balanceId)).toBeGreaterThan(500);
  });
});

describe('metrics', () => {
  test('Prometheus text with ticks, evaluation latency, SSE clients and closes by reason', async () => {
    const r = await E.app.handle(new Request('http://engine/v1/metrics'));
    const text = await r.text();
    expect(r.headers.get('content-type')).toContain('text/plain');
    for (const name of ['engine_ticks_total', 'engine_ticks_per_second', 'engine_risk_evaluation_microseconds_bucket', 'engine_sse_clients']) {
      expect(text).toContain(name);
    }
    expect(text).toMatch(/engine_closes_total\{reason="tp"\} \d+/);
    expect(text).toMatch(/engine_closes_total\{reason="manual"\} \d+/);
  });

  test('test quotes exist only with test controls', async () => {
    const { createApp } = await import('../src/http/app.ts');
    const app = createApp({ sql, core: E.core, secret: 'test-secret-0123456789abcdef' });
    const res = await app.handle(new Request('http://engine/v1/test/quotes', { method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-secret': 'test-secret-0123456789abcdef' }, body: JSON.stringify({ symbol: BTC.name, bid: 1, ask: 2 }) }));
    expect(res.status).toBe(404);
  });
});
