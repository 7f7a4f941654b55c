// The dashboard's action and the statements against PostgreSQL, the engine mocked at the
// network boundary (msw) with handlers typed by the engine's contract (engine/src/contract):
// web sends every command for the signed-in user (the engine resolves the wallet and checks the
// order is theirs: engine/test/contract.test.ts), maps the engine's refusals to toasts, answers
// a down engine with a clean 503, and streams statements as valid CSV.
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import type { z } from 'zod';
import type { CloseOrderBody, ModifyOrderBody, PlaceOrderBody } from '@broker/engine/contract/orders';
import { testSql, createUser, sessionFor, post, get, settle } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import { db } from '~/shared/db.server.ts';
import type { EngineOrder, EngineQuote } from '~/shared/engine.server.ts';
import { currentQuotes, forgetQuotes } from '~/modules/trading/quotes.server.ts';
import { getSetting, setSetting } from '~/shared/settings.server.ts';
import { action, loader } from '~/routes/_client.dashboard.tsx';
import { loader as exportLoader } from '~/routes/statements.export.ts';
import { loader as ratesLoader } from '~/routes/dashboard.rates.ts';
import { loader as instrumentsLoader } from '~/routes/dashboard.instruments.ts';
import { FIRST_CATEGORY } from '~/modules/trading/schemas.ts';
import { csvField, csvLine, listStatement } from '~/modules/statements/statements.server.ts';
import { parseListQuery } from '~/components/ui/list-params.ts';

const sql = testSql();
type Sent = { path: string; body: z.output<typeof PlaceOrderBody> | z.output<typeof CloseOrderBody> | z.output<typeof ModifyOrderBody> };
const calls: Sent[] = [];
let refuse: { status: number; message: string; code: string } | null = null;
/** the engine cannot be reached */
let down = false;
const engine = env().ENGINE_URL;
/** An order as the engine answers it. */
const order = (o: Partial<EngineOrder> = {}): EngineOrder => ({
  id: 1, user_id: 1, balance_id: 1, instrument_id: 1, instrument: 'TST_USD', type: 'buy', kind: 'forex', trade_amount: '1000.00000000',
  lots: null, open_rate: '1.1002000000', close_rate: null, exchange_rate: '1.0000000000', spread: '0.00000000', profit: null, loss: null,
  pro_loss: null, margin_used: '11.00000000', leverage: 100, created_at: new Date().toISOString(), close_time: null, close_reason: null,
  closed_by: null, deleted_at: null, position_id: null, trailing_distance: null, ...o,
});
const refusal = () => (down ? HttpResponse.error() : refuse ? HttpResponse.json({ message: refuse.message, code: refuse.code }, { status: refuse.status }) : null);
mockServer(
  http.post<never, z.output<typeof PlaceOrderBody>>(`${engine}/v1/orders`, async ({ request }) => {
    const body = await request.json();
    calls.push({ path: '/v1/orders', body });
    return refusal() ?? HttpResponse.json({ ok: true as const, order: order({ user_id: body.userId }), replayed: false }, { status: 201 });
  }),
  http.post<{ id: string }, z.output<typeof CloseOrderBody>>(`${engine}/v1/orders/:id/close`, async ({ request, params }) => {
    calls.push({ path: `/v1/orders/${params.id}/close`, body: await request.json() });
    return refusal() ?? HttpResponse.json({ ok: true as const, order: order({ id: Number(params.id) }), balanceAfter: null });
  }),
  http.patch<{ id: string }, z.output<typeof ModifyOrderBody>>(`${engine}/v1/orders/:id`, async ({ request, params }) => {
    calls.push({ path: `/v1/orders/${params.id}`, body: await request.json() });
    return refusal() ?? HttpResponse.json({ ok: true as const, order: order({ id: Number(params.id) }) });
  }),
  http.get(`${engine}/v1/quotes`, () => {
    quoteCalls++;
    return down ? HttpResponse.error() : HttpResponse.json({ status: { fx: 'open' as const, stock: 'open' as const, crypto: 'open' as const }, quotes: engineQuotes });
  }),
);
let engineQuotes: EngineQuote[] = [];
let quoteCalls = 0;
// the process keeps the engine's last quotes for a moment (quotes.server.ts): each test starts without them
afterEach(() => { calls.length = 0; refuse = null; down = false; engineQuotes = []; quoteCalls = 0; forgetQuotes(); });
afterAll(async () => { await sql.end(); });

let instrumentId: number;
async function instrument() {
  if (instrumentId) return instrumentId;
  const [i] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, bids, asks)
                        VALUES ('TST_USD', 'TST', 'USD', 'forex', 100, 1.1, 1.1002)
                        ON CONFLICT (name) DO UPDATE SET base = 'TST' RETURNING id`;
  return (instrumentId = Number(i.id));
}

async function customer() {
  const u = await createUser(sql);
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  await sql`UPDATE users SET active_balance_id = ${b.id} WHERE id = ${u.id}`;
  const s = await sessionFor(sql, u.id);
  return { ...u, balanceId: Number(b.id), cookie: s.cookie };
}

async function closedOrders(userId: number, balanceId: number, n: number, opts: { open?: boolean } = {}) {
  const inst = await instrument();
  return sql`
    INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, close_rate, exchange_rate,
                        spread, pro_loss, margin_used, leverage, close_time, close_reason)
    SELECT ${userId}, ${balanceId}, ${inst}, 'buy', 'forex', 1000, 1.1, ${opts.open ? null : 1.2}, 1, 0, ${opts.open ? null : 100}, 11, 100,
           ${opts.open ? null : sql`'2024-03-01T12:00:00Z'::timestamptz + make_interval(days => g)`}, ${opts.open ? null : 'manual'}
      FROM generate_series(1, ${n}) g RETURNING id`;
}

const reply = async (p: Promise<unknown>) => {
  const r = (await settle(p)) as { data: unknown; init: { status?: number } | null } | Response;
  if (r instanceof Response) return { status: r.status, body: null };
  return { status: r.init?.status ?? 200, body: r.data as { ok: boolean; toast: string } };
};

describe('dashboard action', () => {
  test('placing an order goes to the engine for the signed-in user; the engine picks their active wallet', async () => {
    const c = await customer();
    const r = await reply(action({ request: post('/dashboard', { intent: 'place', type: 'buy', instrument: 'TST_USD', amount: '1000', profit: '1.3', loss: '' }, { cookie: c.cookie }), params: {}, context: {} }));
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Order Placed Successfully' } });
    expect(calls).toEqual([{ path: '/v1/orders', body: { userId: c.id, type: 'buy', instrument: 'TST_USD', amount: '1000', profit: '1.3', loss: null } }]);
  });

  test('an engine that cannot be reached is a 503 with the generic toast, for every command', async () => {
    const c = await customer();
    const [o] = await closedOrders(c.id, c.balanceId, 1, { open: true });
    down = true;
    const bodies: Record<string, string>[] = [
      { intent: 'place', type: 'buy', instrument: 'TST_USD', amount: '1' }, { intent: 'close', orderId: String(o.id) },
      { intent: 'modify', orderId: String(o.id), field: 'profit', value: '2' },
    ];
    for (const body of bodies) {
      const r = await reply(action({ request: post('/dashboard', body, { cookie: c.cookie }), params: {}, context: {} }));
      expect(r, body.intent).toMatchObject({ status: 503, body: { ok: false, toast: 'Something went wrong' } });
    }
  });

  test("the engine's refusal is the toast, with its status", async () => {
    const c = await customer();
    refuse = { status: 422, message: 'Insufficient Free Margin!', code: 'insufficient_free_margin' };
    const r = await reply(action({ request: post('/dashboard', { intent: 'place', type: 'buy', instrument: 'TST_USD', amount: '1' }, { cookie: c.cookie }), params: {}, context: {} }));
    expect(r).toMatchObject({ status: 422, body: { ok: false, toast: 'Insufficient Free Margin!' } });
  });

  test('bad input is refused before the engine', async () => {
    const c = await customer();
    const bodies: Record<string, string>[] = [{ intent: 'place', type: 'hold', instrument: 'TST_USD', amount: '1' }, { intent: 'place', type: 'buy', instrument: 'TST_USD', amount: '-1' }, { intent: 'nope' }];
    for (const body of bodies) {
      const r = await reply(action({ request: post('/dashboard', body, { cookie: c.cookie }), params: {}, context: {} }));
      expect(r.status).toBe(400);
    }
    expect(calls).toEqual([]);
  });

  // the hardening issue's bad numbers: each is a 400 whose toast names the field, and the engine is never called
  const BAD = ['abc', '1,5', '1.0.0', '1e-9', '0.000000001', '1e30', '1e308', 'Infinity', '100000000000000000', '-1', '0x10'];
  const LABEL = { amount: 'Amount', lots: 'Lots', profit: 'Take profit', loss: 'Stop loss' } as const;
  for (const field of ['amount', 'lots', 'profit', 'loss'] as const) {
    test(`every bad ${field} is refused naming the field, before the engine`, async () => {
      const c = await customer();
      for (const bad of field === 'amount' || field === 'lots' ? [...BAD, '', '0'] : BAD) {
        const body = { intent: 'place', type: 'buy', instrument: 'TST_USD', amount: '1', [field]: bad };
        const r = await reply(action({ request: post('/dashboard', body, { cookie: c.cookie }), params: {}, context: {} }));
        expect(r.status, `${field}=${bad}`).toBe(400);
        expect(r.body?.toast, `${field}=${bad}`).toMatch(new RegExp(`^${LABEL[field]} `));
      }
      expect(calls).toEqual([]);
    });
  }

  test("a refused form answers Conform's reply: the field's error under the field, zod's own words never shown", async () => {
    const c = await customer();
    const send = async (body: Record<string, string>) => (await reply(action({ request: post('/dashboard', body, { cookie: c.cookie }), params: {}, context: {} }))).body as unknown as {
      ok: boolean; intent: string; toast: string; result: { status: string; error: Record<string, string[]> };
    };
    const bad = await send({ intent: 'place', type: 'buy', instrument: 'TST_USD', amount: '1.1234567', profit: 'x' });
    expect(bad).toMatchObject({ ok: false, intent: 'place', toast: 'Amount allows at most 5 decimal places', result: { status: 'error' } });
    expect(bad.result.error).toMatchObject({ amount: ['Amount allows at most 5 decimal places'], profit: ['Take profit must be a number like 12.5'] });
    // a hidden field the page fills itself: the generic message, not zod's English
    const hold = await send({ intent: 'place', type: 'hold', instrument: 'TST_USD', amount: '1' });
    expect(hold).toMatchObject({ toast: 'Something went wrong', result: { error: { type: ['Something went wrong'] } } });
    expect((await send({ intent: 'nope' })).result.error).toEqual({ intent: ['Something went wrong'] });
    expect(calls).toEqual([]);
  });

  test('amount=0.000000001 is refused, not rounded; the smallest step still goes through', async () => {
    const c = await customer();
    const bad = await reply(action({ request: post('/dashboard', { intent: 'place', type: 'buy', instrument: 'TST_USD', amount: '0.000000001' }, { cookie: c.cookie }), params: {}, context: {} }));
    expect(bad).toMatchObject({ status: 400, body: { ok: false, toast: 'Amount allows at most 5 decimal places' } });
    expect(calls).toEqual([]);
    const ok = await reply(action({ request: post('/dashboard', { intent: 'place', type: 'buy', instrument: 'TST_USD', amount: '0.00001', profit: '1.10021', loss: 'null' }, { cookie: c.cookie }), params: {}, context: {} }));
    expect(ok).toMatchObject({ status: 200, body: { ok: true } });
    expect(calls).toEqual([{ path: '/v1/orders', body: expect.objectContaining({ amount: '0.00001', profit: '1.10021', loss: null }) }]);
  });

  test('a bad take-profit or stop-loss in the modals is refused naming the field, before the engine', async () => {
    const c = await customer();
    const [o] = await closedOrders(c.id, c.balanceId, 1, { open: true });
    for (const field of ['profit', 'loss'] as const) {
      for (const bad of BAD) {
        const r = await reply(action({ request: post('/dashboard', { intent: 'modify', orderId: String(o.id), field, value: bad }, { cookie: c.cookie }), params: {}, context: {} }));
        expect(r.status, `${field}=${bad}`).toBe(400);
        expect(r.body?.toast, `${field}=${bad}`).toMatch(new RegExp(`^${LABEL[field]} `));
      }
    }
    expect(calls).toEqual([]);
    const ok = await reply(action({ request: post('/dashboard', { intent: 'modify', orderId: String(o.id), field: 'loss', value: '' }, { cookie: c.cookie }), params: {}, context: {} }));
    expect(ok.status).toBe(200);
    expect(calls).toEqual([{ path: `/v1/orders/${o.id}`, body: expect.objectContaining({ loss: null }) }]);
  });

  test('a partial close sends the quantity read in the page\'s language; a trailing stop its distance, keeping the stop-loss', async () => {
    const c = await customer();
    const [o] = await closedOrders(c.id, c.balanceId, 1, { open: true });
    const send = (body: Record<string, string>, lang = 'en') => reply(action({ request: post('/dashboard', body, { cookie: `${c.cookie}; lang=${lang}` }), params: {}, context: {} }));
    const part = await send({ intent: 'close', orderId: String(o.id), unit: 'amount', quantity: '500' });
    expect([part.status, part.body?.toast]).toEqual([200, 'Position Partially Closed']);
    const bad = await send({ intent: 'close', orderId: String(o.id), unit: 'lots', quantity: 'abc' });
    expect([bad.status, bad.body?.toast]).toEqual([400, 'Lots must be a number like 12.5']);
    const whole = await send({ intent: 'close', orderId: String(o.id), unit: 'amount', quantity: '' });
    expect(whole.body?.toast).toBe('Order Closed Successfully');
    // the stop-loss dialog with a trailing stop on: no rate sent, the stop-loss is the engine's to keep and move
    const trail = await send({ intent: 'modify', orderId: String(o.id), field: 'loss', trailing: '0.0015' });
    expect([trail.status, trail.body?.toast]).toEqual([200, 'Trailing Stop Set Successfully']);
    const off = await send({ intent: 'modify', orderId: String(o.id), field: 'loss', value: '1.05', trailing: '' });
    expect(off.status).toBe(200);
    const badTrail = await send({ intent: 'modify', orderId: String(o.id), field: 'loss', trailing: '-1' });
    expect(badTrail.status).toBe(400);
    expect(calls.map((x) => x.body)).toEqual([
      { userId: c.id, quantity: '500' }, { userId: c.id },
      { userId: c.id, trailing: '0.0015' }, { userId: c.id, loss: '1.05', trailing: null },
    ]);
  });

  test("close and modify go to the engine with the signed-in user's id; its 'not found' (another's order) is a 404", async () => {
    const owner = await customer();
    const other = await customer();
    const [o] = await closedOrders(owner.id, owner.balanceId, 1, { open: true });
    refuse = { status: 404, code: 'not_found', message: 'Order not found' };
    const close = await reply(action({ request: post('/dashboard', { intent: 'close', orderId: String(o.id) }, { cookie: other.cookie }), params: {}, context: {} }));
    expect(close).toMatchObject({ status: 404, body: { ok: false, toast: 'Order not found' } });
    const modify = await reply(action({ request: post('/dashboard', { intent: 'modify', orderId: String(o.id), field: 'profit', value: '2' }, { cookie: other.cookie }), params: {}, context: {} }));
    expect(modify).toMatchObject({ status: 404, body: { ok: false, toast: 'Something went wrong' } });
    expect(calls).toEqual([
      { path: `/v1/orders/${o.id}/close`, body: { userId: other.id } },
      { path: `/v1/orders/${o.id}`, body: { userId: other.id, profit: '2' } },
    ]);
    refuse = null;
    calls.length = 0;
    const r = await reply(action({ request: post('/dashboard', { intent: 'modify', orderId: String(o.id), field: 'loss', value: '' }, { cookie: owner.cookie }), params: {}, context: {} }));
    // a level switched off is removed, and the toast says so; one typed is set
    expect(r).toMatchObject({ status: 200, body: { toast: 'Stop Loss Removed Successfully' } });
    expect(calls[0]).toEqual({ path: `/v1/orders/${o.id}`, body: { userId: owner.id, loss: null } });
    const modify2 = (field: string, value: string) => reply(action({ request: post('/dashboard', { intent: 'modify', orderId: String(o.id), field, value }, { cookie: owner.cookie }), params: {}, context: {} }));
    expect((await modify2('profit', '')).body?.toast).toBe('Take Profit Removed Successfully');
    expect((await modify2('profit', '2')).body?.toast).toBe('Take Profit Set Successfully');
    expect((await modify2('loss', '0.5')).body?.toast).toBe('Stop Loss Set Successfully');
  });

  test("a refused take-profit / stop-loss shows the engine's reason; other failures stay generic", async () => {
    const c = await customer();
    const [o] = await closedOrders(c.id, c.balanceId, 1, { open: true });
    const modify = () => reply(action({ request: post('/dashboard', { intent: 'modify', orderId: String(o.id), field: 'loss', value: '1.2' }, { cookie: c.cookie }), params: {}, context: {} }));
    refuse = { status: 422, code: 'bad_stop_loss', message: 'Stop loss must be below the current price (1.1): it would close the position at once' };
    expect(await modify()).toMatchObject({ status: 422, body: { ok: false, toast: 'Stop loss must be below the current price (1.1): it would close the position at once' } });
    refuse = { status: 404, code: 'not_found', message: 'Order not found' };
    expect((await modify()).body).toMatchObject({ ok: false, toast: 'Something went wrong' });
  });

  test("the 'verify KYC to trade' notice shows only while the KYC trade switch is on", async () => {
    const c = await customer(); // no KYC
    const notice = async () => ((await loader({ request: get('/dashboard', c.cookie), params: {}, context: {} })) as { kycNotice: boolean }).kycNotice;
    // written through the loader's own pool, so its cached copy is dropped at once (not when the NOTIFY arrives)
    const before = await getSetting(sql, 'kyc');
    try {
      await setSetting(db(), 'kyc', { ...before, trade: 'off' });
      expect(await notice()).toBe(false);
      await setSetting(db(), 'kyc', { ...before, trade: 'on' });
      expect(await notice()).toBe(true);
      await sql`INSERT INTO kyc_documents (user_id, type, status, decided_at) VALUES (${c.id}, 'passport', 'approved', now())`;
      expect(await notice()).toBe(false);
    } finally {
      await setSetting(db(), 'kyc', before);
    }
  });

  test('a price the engine has not had live since it started is marked stale on the dashboard', async () => {
    const c = await customer();
    await instrument();
    const quotes = async () => ((await loader({ request: get('/dashboard', c.cookie), params: {}, context: {} })) as { quotes: Record<string, { bid: number; stale?: boolean }> }).quotes;
    const q = { name: 'TST_USD', category: 'forex' as const, tradable: true, open: true, bids: 1.2, asks: 1.2002, prevBids: null, prevAsks: null, closeoutBid: null, closeoutAsk: null, ts: null };
    // the engine's saved quote after a restart (each step drops the process's copy of the engine's last answer)
    engineQuotes = [{ ...q, stale: true }];
    expect((await quotes()).TST_USD).toMatchObject({ bid: 1.2, stale: true });
    // no quote from the engine at all: the price stored with the instrument, stale
    const [stored] = await sql`SELECT bids::float8 AS bid FROM instruments WHERE name = 'TST_USD'`;
    engineQuotes = [];
    forgetQuotes();
    expect((await quotes()).TST_USD).toMatchObject({ bid: stored.bid, stale: true });
    // the engine down: the stored price too
    down = true;
    forgetQuotes();
    expect((await quotes()).TST_USD).toMatchObject({ bid: stored.bid, stale: true });
    down = false;
    // a live one
    engineQuotes = [{ ...q, stale: false }];
    forgetQuotes();
    expect((await quotes()).TST_USD).toEqual({ bid: 1.2, ask: 1.2002, prevBid: null, prevAsk: null });
  });

  test("the engine's quotes are asked for at most once per QUOTES_MAX_AGE_MS, shared by the requests in between; a failure is not kept", async () => {
    const q = { name: 'TST_USD', category: 'forex' as const, tradable: true, open: true, bids: 1.3, asks: 1.3002, prevBids: null, prevAsks: null, closeoutBid: null, closeoutAsk: null, ts: null, stale: false };
    engineQuotes = [q];
    expect(env().QUOTES_MAX_AGE_MS).toBe(1000);
    // concurrent and following requests within the age share one answer
    const [a, b] = await Promise.all([currentQuotes(), currentQuotes()]);
    const c = await currentQuotes();
    expect(quoteCalls).toBe(1);
    expect(a).toBe(b);
    expect(c).toBe(a);
    expect(a.ok && a.quotes[0].bids).toBe(1.3);
    // an answer older than the age is asked for again
    engineQuotes = [{ ...q, bids: 1.4, asks: 1.4002 }];
    const d = await currentQuotes(0);
    expect(quoteCalls).toBe(2);
    expect(d.ok && d.quotes[0].bids).toBe(1.4);
    expect(await currentQuotes()).toBe(d);
    // a failed answer is not kept: the next request asks again
    forgetQuotes();
    down = true;
    expect((await currentQuotes()).ok).toBe(false);
    down = false;
    expect((await currentQuotes()).ok).toBe(true);
    expect(quoteCalls).toBe(4);
  });

  test('the conversion rate call names a missing or bad quote currency', async () => {
    const c = await customer();
    for (const q of ['', '?quote=', '?quote=%00', '?quote=US1', '?quote=ABCDEFG']) {
      const r = (await settle(Promise.resolve().then(() => ratesLoader({ request: get(`/dashboard/rates${q}`, c.cookie), params: {}, context: {} })))) as Response;
      expect(r.status, q).toBe(400);
      expect((await r.json()).message).toBe('quote must be a currency code such as USD');
    }
  });

  test('a cross-site post is refused', async () => {
    const c = await customer();
    const r = await settle(action({ request: post('/dashboard', { intent: 'favorite-add', id: '1' }, { cookie: c.cookie, origin: 'https://evil.example' }), params: {}, context: {} }));
    expect((r as Response).status).toBe(403);
  });

  test('favorites: the spec toasts, idempotent, per user', async () => {
    const c = await customer();
    const id = String(await instrument());
    const add = () => reply(action({ request: post('/dashboard', { intent: 'favorite-add', id }, { cookie: c.cookie }), params: {}, context: {} }));
    expect((await add()).body).toMatchObject({ ok: true, toast: 'Added to favorites' });
    expect((await add()).body).toMatchObject({ ok: true });
    const data = (await loader({ request: get('/dashboard', c.cookie), params: {}, context: {} })) as { favorites: number[] };
    expect(data.favorites).toEqual([Number(id)]);
    const rm = await reply(action({ request: post('/dashboard', { intent: 'favorite-remove', id }, { cookie: c.cookie }), params: {}, context: {} }));
    expect(rm.body).toMatchObject({ ok: true, toast: 'Removed from favorites' });
  });

  test('positions are paged on the server, the open tab only open ones, and the exposure summed per instrument', async () => {
    const c = await customer();
    await closedOrders(c.id, c.balanceId, 20);
    await closedOrders(c.id, c.balanceId, 3, { open: true });
    const load = async (q: string) => (await loader({ request: get(`/dashboard${q}`, c.cookie), params: {}, context: {} })) as
      { positions: { rows: { id: number; closeTime: string | null }[]; total: number }; exposure: { long: number; count: number }[] };
    const all = await load('');
    expect(all.positions.total).toBe(23);
    expect(all.positions.rows).toHaveLength(15);
    // newest first, with the exact decimals of the columns and ISO times
    const ids = all.positions.rows.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    const [newestClosed] = (await sql`SELECT id, created_at, close_time FROM orders WHERE balance_id = ${c.balanceId} AND close_time IS NOT NULL ORDER BY id DESC LIMIT 1`);
    expect(all.positions.rows.find((r) => r.id === Number(newestClosed.id))).toEqual({
      id: Number(newestClosed.id), createdAt: (newestClosed.created_at as Date).toISOString(), type: 'buy', amount: '1000.00000000', lots: null,
      instrument: 'TST_USD', base: 'TST', quote: 'USD', openRate: '1.1000000000', closeRate: '1.2000000000', exchangeRate: '1.0000000000',
      spread: '0.00000000', profit: null, loss: null, proLoss: '100.00000000', closeTime: (newestClosed.close_time as Date).toISOString(),
      closeReason: 'manual', digits: 5, positionId: null, trailing: null, category: 'forex', trailingMin: null,
    });
    expect((await load('?pos_page=2')).positions.rows).toHaveLength(8);
    // a page past the end has no rows and still the count
    expect((await load('?pos_page=9')).positions).toMatchObject({ total: 23, rows: [] });
    const open = await load('?pos_tab=open');
    expect(open.positions.total).toBe(3);
    expect(open.positions.rows.every((r) => r.closeTime === null)).toBe(true);
    // three buys of 1,000 at 1.1: P/L = 3,000 × ask − 3,300
    expect(all.exposure).toEqual([expect.objectContaining({ long: 3000, short: 0, offset: 3300, count: 3 })]);
  });
});

describe('the instruments of the other tabs, loaded on demand', () => {
  type Inst = { id: number; name: string; category: string };
  test('the page comes with its first tab\'s instruments, the favorites\' and the positions\' prices; GET /dashboard/instruments has every instrument and its price', async () => {
    const c = await customer();
    const forexId = await instrument(); // TST_USD, forex: the first tab
    const [crypto] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, bids, asks)
                               VALUES ('TSTC_USD', 'TSTC', 'USD', 'crypto', 2, 50, 51)
                               ON CONFLICT (name) DO UPDATE SET base = 'TSTC' RETURNING id`;
    const [stock] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, bids, asks)
                              VALUES ('TSTS_USD', 'TSTS', 'USD', 'stock', 5, 20, 21)
                              ON CONFLICT (name) DO UPDATE SET base = 'TSTS' RETURNING id`;
    // an open position on the stock (its price is needed for the live P/L), the crypto one a favorite
    await sql`INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, exchange_rate, spread, margin_used, leverage)
              VALUES (${c.id}, ${c.balanceId}, ${stock.id}, 'buy', 'stock', 1, 20, 1, 0, 4, 5)`;
    await sql`INSERT INTO favorites (user_id, instrument_id) VALUES (${c.id}, ${crypto.id})`;
    const every = await sql`SELECT id::int, name, category FROM instruments ORDER BY category, name`;
    const page = (await loader({ request: get('/dashboard', c.cookie), params: {}, context: {} })) as
      { instruments: Inst[]; allInstruments: boolean; quotes: Record<string, { bid: number; stale?: boolean }> };
    const expected = every.filter((i) => i.category === FIRST_CATEGORY || i.id === Number(crypto.id)).map((i) => i.name);
    expect(page.instruments.map((i) => i.name)).toEqual(expected);
    expect(page.instruments.map((i) => i.id)).toContain(forexId);
    expect(page.allInstruments).toBe(false);
    // prices: the page's instruments and the open position's, not the rest
    expect(Object.keys(page.quotes).sort()).toEqual(expect.arrayContaining(['TSTC_USD', 'TSTS_USD', 'TST_USD']));
    const others = every.filter((i) => i.category !== FIRST_CATEGORY && i.id !== Number(crypto.id) && i.id !== Number(stock.id));
    for (const o of others) expect(page.quotes[o.name]).toBeUndefined();

    const res = (await instrumentsLoader({ request: get('/dashboard/instruments', c.cookie), params: {}, context: {} })) as Response;
    expect(res.status).toBe(200);
    const all = (await res.json()) as { instruments: Inst[]; quotes: Record<string, { bid: number; stale?: boolean }> };
    expect(all.instruments.map((i) => i.name)).toEqual(every.map((i) => i.name));
    // no live quote from the engine here: every instrument's saved price, marked stale
    expect(all.quotes.TSTS_USD).toMatchObject({ bid: 20, stale: true });
    expect(all.quotes.TSTC_USD).toMatchObject({ bid: 50, stale: true });
    await sql`DELETE FROM orders WHERE balance_id = ${c.balanceId}`;
    await sql`DELETE FROM favorites WHERE user_id = ${c.id}`;
  });

  test('GET /dashboard/instruments is for signed-in users only', async () => {
    const r = (await settle(instrumentsLoader({ request: get('/dashboard/instruments'), params: {}, context: {} }))) as Response;
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('/');
  });
});

describe('statements', () => {
  test('date range, 15 a page, newest close first, only the active wallet', async () => {
    const c = await customer();
    await closedOrders(c.id, c.balanceId, 40); // closes 2024-03-02 .. 2024-04-10
    await closedOrders(c.id, c.balanceId, 2, { open: true });
    const all = await listStatement(sql, c.balanceId, { dateStart: '', dateEnd: '' }, 1);
    expect(all.total).toBe(40);
    expect(all.rows).toHaveLength(15);
    expect(all.rows[0].closeTime > all.rows[1].closeTime).toBe(true);
    const march = await listStatement(sql, c.balanceId, { dateStart: '2024-03-05', dateEnd: '2024-03-10' }, 1);
    expect(march.total).toBe(6);
    expect(parseListQuery(new URLSearchParams({ dateStart: "2024-01-01'; --", dateEnd: '2024-13-45' }), { dates: true })).toMatchObject({ ok: false, field: 'dateStart' });
  });

  test('CSV fields are escaped (RFC 4180) and formulas defused', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('-12.5')).toBe('-12.5');
    expect(csvField(null)).toBe('');
    expect(csvLine([1, 'x,y', null])).toBe('1,"x,y",\r\n');
  });

  test('the export streams every closed order of the range as CSV', async () => {
    const c = await customer();
    await closedOrders(c.id, c.balanceId, 2500);
    const res = (await exportLoader({ request: get('/statements/export?dateStart=2024-03-02&dateEnd=', c.cookie), params: {}, context: {} })) as Response;
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="statement-real-USD-2024-03-02-now\.csv"$/);
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(2501);
    // every line names the wallet and its currency
    expect(lines[0].split(',').slice(-2)).toEqual(['Wallet', 'Currency']);
    expect(lines[1].split(',')).toHaveLength(13);
    expect(lines[1].split(',').slice(-2)).toEqual(['Real', 'USD']);
  });
});
