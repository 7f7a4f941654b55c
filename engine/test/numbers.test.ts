// Numbers that come in over HTTP go through the one decimal parser (domain/decimal-input.ts):
// a bad one is a 400/422 naming the field, never a 500, and changes nothing.
import { describe, expect, test, beforeAll, afterAll } from 'bun:test';
import { db, createUser, uniq, cryptoEngine, type TestEngine, type TestInstrument } from './helpers.ts';
import { parseDecimal, parseLevel, decimalSchema, levelSchema } from '../src/domain/index.ts';

const sql = db(10);
let E: TestEngine, BTC: TestInstrument;
beforeAll(async () => ({ E, BTC } = await cryptoEngine(sql)));
afterAll(async () => { await E.stop(); await sql.end(); });

/** every bad input of the hardening issue, as strings and where JSON allows as numbers */
const BAD: unknown[] = ['abc', '', '1,5', '1.0.0', '1e-9', '0.000000001', '1e30', '1e308', 'Infinity', '100000000000000000', 1e-9, 1e30, 1e308, 0.000000001, '-1', -1, 'NaN', ' ', '0x10', '1.', '.5', '+1', true, {}, []];
/** bad for every field; '100000000000000' (10^14) fits trade_amount but its notional does not */
const LABEL = { amount: 'Amount', lots: 'Lots', profit: 'Take profit', loss: 'Stop loss' } as const;

const orders = async (userId: number) => (await sql`SELECT count(*)::int AS n FROM orders WHERE user_id = ${userId}`)[0].n as number;

describe('domain parser', () => {
  test.each([
    ['12', '12'], ['007.50', '7.5'], ['0.00001', '0.00001'], [' 3 ', '3'], [1.5, '1.5'], [100000, '100000'], ['9999999999999999.99999', '9999999999999999.99999'],
  ])('amount %p → %p', (input, out) => {
    expect(parseDecimal(input, 'amount')).toEqual({ ok: true, value: out });
  });

  test.each([
    ['abc', 'Amount must be a number like 12.5'], ['', 'Amount is required'], ['1,5', 'Amount must be a number like 12.5'],
    ['1.0.0', 'Amount must be a number like 12.5'], ['1e-9', 'Amount must be a number like 12.5'], [1e-9, 'Amount must be a number like 12.5'],
    ['0.000000001', 'Amount allows at most 5 decimal places'], ['0.000001', 'Amount allows at most 5 decimal places'],
    ['1e30', 'Amount must be a number like 12.5'], [1e30, 'Amount must be a number like 12.5'], ['Infinity', 'Amount must be a number like 12.5'],
    [Infinity, 'Amount must be a number like 12.5'], [NaN, 'Amount must be a number like 12.5'], ['10000000000000000', 'Amount is too large'], ['0', 'Amount must be greater than 0'],
    ['0.000', 'Amount must be greater than 0'], ['-1', 'Amount must be greater than 0'], [null, 'Amount is required'], [true, 'Amount must be a number like 12.5'],
  ])('amount %p refused: %p', (input, message) => {
    expect(parseDecimal(input, 'amount')).toEqual({ ok: false, message });
  });

  test('lots are bounded by lots numeric(20, 8); levels by numeric(24, 10) and the 0.00001 step', () => {
    expect(parseDecimal('999999999999', 'lots')).toMatchObject({ ok: true });
    expect(parseDecimal('1000000000000', 'lots')).toEqual({ ok: false, message: 'Lots is too large' });
    expect(parseDecimal('0.001234567891', 'lots')).toEqual({ ok: false, message: 'Lots allows at most 5 decimal places' });
    expect(parseLevel('99999999999999.99999', 'profit')).toEqual({ ok: true, value: '99999999999999.99999' });
    expect(parseLevel('100000000000000', 'profit')).toEqual({ ok: false, message: 'Take profit is too large' });
    expect(parseLevel('1.123456', 'loss')).toEqual({ ok: false, message: 'Stop loss allows at most 5 decimal places' });
    expect(parseLevel('-1', 'loss')).toEqual({ ok: false, message: 'Stop loss cannot be negative' });
    for (const none of [null, undefined, 0, '0', '0.00']) expect(parseLevel(none, 'profit')).toEqual({ ok: true, value: null });
    // a form sends a switched-off level as '' or 'null'; a JSON body sends null
    for (const blank of ['', ' ', 'null']) expect(parseLevel(blank, 'profit', { blank: true })).toEqual({ ok: true, value: null });
    expect(parseLevel('', 'profit')).toEqual({ ok: false, message: 'Take profit must be a number like 12.5, or null' });
  });

  test('the zod forms give the same answers', () => {
    expect(decimalSchema('amount').safeParse('1.50').data).toBe('1.5');
    expect(decimalSchema('amount').safeParse('0.000000001').error?.issues[0].message).toBe('Amount allows at most 5 decimal places');
    expect(decimalSchema('amount').safeParse(undefined).error?.issues[0].message).toBe('Amount is required');
    expect(levelSchema('profit').safeParse('').data).toBeNull();
    expect(levelSchema('profit').safeParse('1e-9').error?.issues[0].message).toBe('Take profit must be a number like 12.5');
  });
});

describe('POST /v1/orders', () => {
  for (const field of ['amount', 'lots', 'profit', 'loss'] as const) {
    test(`every bad ${field} is a 400 naming the field, and places nothing`, async () => {
      const u = await createUser(sql, { deposit: '1000' });
      for (const bad of BAD) {
        const body = { userId: u.userId, type: 'buy', instrument: BTC.name, amount: '1', [field]: bad };
        const r = await E.call('POST', '/orders', body);
        expect([400, 422], `${field}=${JSON.stringify(bad)}: ${JSON.stringify(r.body)}`).toContain(r.status);
        // the shape check (a boolean, an object) answers Elysia's own 400; every number is read by the parser
        if (typeof bad === 'string' || typeof bad === 'number') expect(r.body.message, JSON.stringify(bad)).toStartWith(LABEL[field]);
      }
      expect(await orders(u.userId)).toBe(0);
    });
  }

  test('an amount whose figures would not fit their columns is refused (10^14, and lots × contract size)', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const r = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: '100000000000000' });
    expect(r).toEqual({ status: 422, body: { message: 'Amount is too large', code: 'invalid_amount' } });
    const n = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1e15 });
    expect(n).toEqual({ status: 422, body: { message: 'Amount is too large', code: 'invalid_amount' } });
    expect(await orders(u.userId)).toBe(0);
  });

  test('too many decimals are refused, not rounded: lots and amount never disagree', async () => {
    await sql`INSERT INTO lot_settings (category, state) VALUES ('crypto', 'lot') ON CONFLICT (category) DO UPDATE SET state = 'lot'`;
    try {
      const u = await createUser(sql, { deposit: '1000' });
      const r = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, lots: '0.001234567891' });
      expect(r).toEqual({ status: 422, body: { message: 'Lots allows at most 5 decimal places', code: 'invalid_amount' } });
      // 5 decimals at or above the smallest lot (0.01) place, lots and units alike
      const ok = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, lots: '0.01001' });
      expect(ok.status).toBe(201);
      expect(ok.body.order).toMatchObject({ lots: '0.01001000', trade_amount: '0.01001000' });
    } finally {
      await sql`UPDATE lot_settings SET state = 'amount' WHERE category = 'crypto'`;
    }
  });

  test('valid boundary values still place: the smallest step, 5 decimals, JSON numbers', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const a = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: '0.00001', profit: '101.00001', loss: '0.00001' });
    expect(a.status).toBe(201);
    expect(a.body.order).toMatchObject({ trade_amount: '0.00001000', profit: '101.0000100000', loss: '0.0000100000' });
    const b = await E.call('POST', '/orders', { userId: u.userId, type: 'sell', instrument: BTC.name, amount: 2.5, profit: 99.5, loss: null });
    expect(b.status).toBe(201);
    expect(b.body.order).toMatchObject({ trade_amount: '2.50000000', profit: '99.5000000000', loss: null });
  });
});

describe('PATCH /v1/orders/:id', () => {
  for (const field of ['profit', 'loss'] as const) {
    test(`every bad ${field} is a 400 naming the field, and changes nothing`, async () => {
      const u = await createUser(sql, { deposit: '1000' });
      const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1, profit: 120, loss: 90 });
      for (const bad of BAD) {
        const r = await E.call('PATCH', `/orders/${body.order.id}`, { userId: u.userId, [field]: bad });
        expect([400, 422], `${field}=${JSON.stringify(bad)}: ${JSON.stringify(r.body)}`).toContain(r.status);
        if (typeof bad === 'string' || typeof bad === 'number') expect(r.body.message, JSON.stringify(bad)).toStartWith(LABEL[field]);
      }
      const [o] = await sql`SELECT profit::text, loss::text FROM orders WHERE id = ${body.order.id}`;
      expect(o).toEqual({ profit: '120.0000000000', loss: '90.0000000000' });
    });
  }
});

describe('staff edit and test quotes', () => {
  test('bad rates, spread and levels are 400 naming the field', async () => {
    const admin = await createUser(sql, { role: 1 });
    const u = await createUser(sql, { deposit: '1000' });
    const { body } = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 });
    const cases: [string, unknown, string, number?, string?][] = [
      ['openRate', 'abc', 'Open rate must be a number like 12.5'], ['openRate', '0', 'Open rate must be greater than 0'],
      ['openRate', '1e308', 'Open rate must be a number like 12.5'], ['openRate', '100000000000000', 'Open rate is too large'],
      ['closeRate', 1e30, 'Close rate must be a number like 12.5'], ['spread', '-1', 'Spread cannot be negative'],
      ['spread', '0.000000001', 'Spread allows at most 8 decimal places'], ['profit', '1,5', 'Take profit must be a number like 12.5', 422, 'bad_take_profit'],
      ['loss', 'Infinity', 'Stop loss must be a number like 12.5', 422, 'bad_stop_loss'],
    ];
    for (const [field, bad, message, status = 400, code = 'invalid'] of cases) {
      const r = await E.call('PUT', `/admin/orders/${body.order.id}`, { actorId: admin.userId, [field]: bad });
      expect(r, `${field}=${bad}`).toEqual({ status, body: { message, code } });
    }
    expect((await sql`SELECT count(*)::int AS n FROM audit_events WHERE target_kind = 'order' AND target_id = ${String(body.order.id)}`)[0].n).toBe(0);
  });

  test('test quotes: a price that does not fit instruments.bids is a 400', async () => {
    const r = await E.call('POST', '/test/quotes', { symbol: BTC.name, bid: 1e308, ask: 1e308 });
    expect(r).toEqual({ status: 400, body: { message: 'Bid must be a number like 12.5' } });
    expect(E.core.book.quote(BTC.name)).toMatchObject({ bid: 100, ask: 101 });
  });
});

describe('idempotency', () => {
  test('the same key with the same body replays the first order; with a different body it is a 409', async () => {
    const u = await createUser(sql, { deposit: '1000' });
    const key = uniq('idem');
    const body = { userId: u.userId, type: 'buy', instrument: BTC.name, amount: '1', profit: '120', idempotencyKey: key };
    const first = await E.call('POST', '/orders', body);
    expect(first.status).toBe(201);
    // the same order, written differently (a number, trailing zeros, a null level left out), is the same body
    const same = await E.call('POST', '/orders', { ...body, amount: 1, profit: '120.000', loss: null });
    expect(same.status).toBe(200);
    expect(same.body.order.id).toBe(first.body.order.id);
    for (const other of [{ amount: '2' }, { type: 'sell' }, { profit: '121' }, { loss: '90' }]) {
      const r = await E.call('POST', '/orders', { ...body, ...other });
      expect(r, JSON.stringify(other)).toEqual({ status: 409, body: { message: 'Idempotency key reused with a different order', code: 'idempotency_conflict' } });
    }
    expect(await orders(u.userId)).toBe(1);
  });
});
