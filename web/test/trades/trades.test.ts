// The staff trade lists (/admin/trades/all|open|closed) against PostgreSQL: roles from the
// permission map on every read and post, the filters in the URL (a bad one named, never a 500),
// deleted trades never listed, and the three actions. The engine's HTTP calls are answered in
// this process (msw) by the engine's own order service (engine/src/orders/service.ts) on the
// same database, with the bodies checked by the contract's schemas as the engine's routes check
// them: the ledger entries and audit rows below are the ones the engine writes.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { AdminCloseBody, AdminEditBody } from '@broker/engine/contract/orders';
import { Book } from '../../../engine/src/book/book.ts';
import { connect as engineConnect } from '../../../engine/src/db.ts';
import { adminDeleteOrder, adminEditOrder, closeOrder, numberRefusal, placeOrder, type OrderDeps } from '../../../engine/src/orders/service.ts';
import { partialClose } from '../../../engine/src/orders/partial.ts';
import { STATUS, type Result } from '../../../engine/src/orders/results.ts';
import { DECIMAL_INPUTS, type DecimalField } from '@broker/engine/domain';
import { testSql, createUser, sessionFor, get, post, settle, unique, walletFor } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import { engine as engineClient } from '~/shared/engine.server.ts';
import { loader as allLoader, action as allAction } from '~/routes/_staff.admin.trades.all.tsx';
import { loader as openLoader, action as openAction } from '~/routes/_staff.admin.trades.open.tsx';
import { loader as closedLoader } from '~/routes/_staff.admin.trades.closed.tsx';
import { EditTradeSchema, TRADE_PARSE } from '~/modules/trades/schemas.ts';
import { listTrades } from '~/modules/trades/trades.server.ts';
import { parseForm } from '~/shared/forms.ts';
import en from '../../../seeds/translations/en.json';
import es from '../../../seeds/translations/es.json';
import fr from '../../../seeds/translations/fr.json';
import de from '../../../seeds/translations/de.json';

const sql = testSql();
const esql = engineConnect(process.env.DATABASE_URL!, { max: 3 });
const book = new Book();
const deps: OrderDeps = { sql: esql, book };
const ENGINE = env().ENGINE_URL;
/** the engine cannot be reached */
let down = false;
const calls: string[] = [];

/** An engine result as its HTTP answer (http/orders.ts answer() and the app's onError). */
function answer<T extends object>(r: Result<T>) {
  return r.ok ? HttpResponse.json(r) : HttpResponse.json({ message: r.message, code: r.code }, { status: STATUS[r.code] });
}
/** A body the route's schema refuses: a number names its field (http/app.ts onError). */
function invalid(issues: { path: (string | number)[]; message: string }[]) {
  const field = String(issues[0]?.path[0] ?? '');
  if (field in DECIMAL_INPUTS) {
    const code = numberRefusal(field as DecimalField);
    return HttpResponse.json({ message: issues[0].message, code }, { status: STATUS[code] });
  }
  return HttpResponse.json({ message: 'Invalid request', code: 'invalid' }, { status: 400 });
}

mockServer(
  http.put<{ id: string }>(`${ENGINE}/v1/admin/orders/:id`, async ({ request, params }) => {
    calls.push(`PUT ${params.id}`);
    if (down) return HttpResponse.error();
    const body = AdminEditBody.safeParse(await request.json());
    if (!body.success) return invalid(body.error.issues);
    return answer(await adminEditOrder(deps, { orderId: Number(params.id), ...body.data }));
  }),
  http.post<{ id: string }>(`${ENGINE}/v1/admin/orders/:id/close`, async ({ request, params }) => {
    calls.push(`CLOSE ${params.id}`);
    if (down) return HttpResponse.error();
    const body = AdminCloseBody.safeParse(await request.json());
    if (!body.success) return invalid(body.error.issues);
    if (body.data.quantity !== undefined) {
      return answer(await partialClose(deps, { orderId: Number(params.id), actorId: body.data.actorId, ip: body.data.ip, reason: 'admin', quantity: body.data.quantity }));
    }
    return answer(await closeOrder(deps, { orderId: Number(params.id), actorId: body.data.actorId, ip: body.data.ip, reason: 'admin' }));
  }),
  http.delete<{ id: string }>(`${ENGINE}/v1/admin/orders/:id`, async ({ request, params }) => {
    calls.push(`DELETE ${params.id}`);
    if (down) return HttpResponse.error();
    const q = new URL(request.url).searchParams;
    return answer(await adminDeleteOrder(deps, { orderId: Number(params.id), actorId: Number(q.get('actorId')), ip: q.get('ip') }));
  }),
  http.get(`${ENGINE}/v1/quotes`, () => HttpResponse.json({
    status: { fx: 'open' as const, stock: 'open' as const, crypto: 'open' as const },
    quotes: [...book.quotes.values()].map((q) => ({
      name: q.name, bids: q.bid, asks: q.ask, prevBids: q.prevBid, prevAsks: q.prevAsk, stale: false,
    })),
  })),
);

let inst: { id: number; name: string };
let quiet: { id: number; name: string };
let admin: { id: number; cookie: string };
let manager: { id: number; cookie: string };

beforeAll(async () => {
  const name = unique('TRD').toUpperCase().slice(0, 20) + '_USD';
  const [i] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, digits, bids, asks)
                        VALUES (${name}, 'TRD', 'USD', 'crypto', 10, 2, 100, 101) RETURNING id`;
  inst = { id: Number(i.id), name };
  // an instrument without a live price: a close is refused
  const qname = unique('NOP').toUpperCase().slice(0, 20) + '_USD';
  const [j] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, digits) VALUES (${qname}, 'NOP', 'USD', 'crypto', 10, 2) RETURNING id`;
  quiet = { id: Number(j.id), name: qname };
  book.setInstruments([
    { id: inst.id, name, base: 'TRD', quote: 'USD', category: 'crypto', tradable: true, leverage: 10, digits: 2 },
    { id: quiet.id, name: qname, base: 'NOP', quote: 'USD', category: 'crypto', tradable: true, leverage: 10, digits: 2 },
  ]);
  book.apply({ symbol: name, bid: 100, ask: 101, ts: Date.now() });
  const a = await createUser(sql, { roleId: 1 });
  const m = await createUser(sql, { roleId: 2 });
  admin = { id: a.id, cookie: (await sessionFor(sql, a.id)).cookie };
  manager = { id: m.id, cookie: (await sessionFor(sql, m.id)).cookie };
});
afterEach(() => { down = false; calls.length = 0; book.apply({ symbol: inst.name, bid: 100, ask: 101, ts: Date.now() }); });
afterAll(async () => { await sql.end(); await esql.end(); });

/** A customer with a real USD wallet of 10,000. */
async function customer() {
  const u = await createUser(sql);
  const balanceId = await walletFor(sql, u.id, { credit: '10000' });
  await sql`UPDATE users SET active_balance_id = ${balanceId} WHERE id = ${u.id}`;
  return { ...u, balanceId };
}

/** An open trade placed by the engine's own place command (margin reserved as in production). */
async function openTrade(userId: number, balanceId: number, o: { type?: 'buy' | 'sell'; amount?: string; loss?: string } = {}) {
  const r = await placeOrder(deps, { userId, balanceId, type: o.type ?? 'buy', instrument: inst.name, amount: o.amount ?? '2', loss: o.loss ?? null, profit: null });
  if (!r.ok) throw new Error(r.message);
  return r.order.id;
}

/** A closed trade: placed, then closed by the engine at `closeAsk` (a buy is marked at the ask). */
async function closedTrade(userId: number, balanceId: number, closeAsk: number) {
  const id = await openTrade(userId, balanceId);
  book.apply({ symbol: inst.name, bid: closeAsk - 1, ask: closeAsk, ts: Date.now() });
  const r = await closeOrder(deps, { orderId: id, reason: 'manual', userId });
  book.apply({ symbol: inst.name, bid: 100, ask: 101, ts: Date.now() });
  if (!r.ok) throw new Error(r.message);
  return id;
}

const PAGES = [['all', allLoader], ['open', openLoader], ['closed', closedLoader]] as const;

async function list(path: string, cookie = admin.cookie) {
  const loader = path.startsWith('/admin/trades/open') ? openLoader : path.startsWith('/admin/trades/closed') ? closedLoader : allLoader;
  const r = await settle(loader({ request: get(path, cookie), params: {}, context: {} })) as { data: any; init: { status?: number } | null } | Response;
  if (r instanceof Response) return { status: r.status, data: null as any };
  return { status: r.init?.status ?? 200, data: r.data };
}

async function act(body: Record<string, string>, opts: { cookie?: string; path?: string; ip?: string } = {}) {
  const path = opts.path ?? '/admin/trades/all';
  const run = path.startsWith('/admin/trades/open') ? openAction : allAction;
  const r = await settle(run({ request: post(path, body, { cookie: opts.cookie ?? admin.cookie }), params: {}, context: { clientIp: opts.ip ?? '10.20.30.40' } })) as { data: any; init: { status?: number } | null } | Response;
  if (r instanceof Response) return { status: r.status, data: null as any };
  return { status: r.init?.status ?? 200, data: r.data };
}

const orderRow = async (id: number) => (await sql`
  SELECT open_rate::text, close_rate::text, spread::text, profit::text, loss::text, pro_loss::text, created_at, close_time, close_reason, deleted_at
    FROM orders WHERE id = ${id}`)[0];
const walletOf = async (balanceId: number) => (await sql`SELECT balance::text, margin::text FROM balances WHERE id = ${balanceId}`)[0];

describe('who may open the lists and post to them', () => {
  test.each([3, 4, 5, 6])('role %i: every list and every action is refused (403) and nothing changes', async (roleId) => {
    const c = await customer();
    const id = await openTrade(c.id, c.balanceId);
    const u = await createUser(sql, { roleId });
    const { cookie } = await sessionFor(sql, u.id);
    for (const [type] of PAGES) expect((await list(`/admin/trades/${type}`, cookie)).status).toBe(403);
    for (const body of [{ intent: 'close', id: String(id) }, { intent: 'delete', id: String(id) }, { intent: 'edit', id: String(id), loss: '50' }] as Record<string, string>[]) {
      expect((await act(body, { cookie })).status).toBe(403);
    }
    expect(calls).toEqual([]);
    expect(await orderRow(id)).toMatchObject({ close_time: null, deleted_at: null, loss: null });
  });

  test('admins and managers open all three lists; signed out goes to sign-in', async () => {
    for (const who of [admin, manager]) {
      for (const [type] of PAGES) {
        const r = await list(`/admin/trades/${type}`, who.cookie);
        expect(r.status).toBe(200);
        expect(r.data.type).toBe(type);
      }
    }
    const anon = await settle(allLoader({ request: get('/admin/trades/all'), params: {}, context: {} }));
    expect((anon as Response).status).toBe(302);
  });
});

describe('the list', () => {
  test('rows carry the user, wallet mode and the trade; deleted trades are never listed; open, closed and all split them', async () => {
    const c = await customer();
    const demo = await walletFor(sql, c.id, { mode: 'demo', credit: '5000' });
    const open = await openTrade(c.id, c.balanceId, { type: 'sell', amount: '3', loss: '150' });
    const closed = await closedTrade(c.id, c.balanceId, 104);
    const onDemo = await openTrade(c.id, demo);
    const gone = await openTrade(c.id, c.balanceId);
    await adminDeleteOrder(deps, { orderId: gone, actorId: admin.id });

    const all = await list(`/admin/trades/all?user=${c.id}`);
    expect(all.data.rows.map((r: any) => r.id)).toEqual([onDemo, closed, open]);
    expect(all.data.total).toBe(3);
    const row = all.data.rows.find((r: any) => r.id === open);
    expect(row).toMatchObject({
      userId: c.id, email: c.email, mode: 'real', currency: 'USD', type: 'sell', symbol: inst.name, instrument: 'TRD/USD',
      openRate: '100.0000000000', closeRate: null, loss: '150.0000000000', profit: null, leverage: 10, closeTime: null,
    });
    // open: its floating P/L at the live quote (a sell is marked at the bid): 3 × (100 − 100)
    expect(row.floatingPnl).toBe(0);
    expect(all.data.rows.find((r: any) => r.id === onDemo).mode).toBe('demo');
    const c2 = all.data.rows.find((r: any) => r.id === closed);
    expect(c2).toMatchObject({ closeRate: '104.0000000000', proLoss: '6.00000000', floatingPnl: null });

    expect((await list(`/admin/trades/open?user=${c.id}`)).data.rows.map((r: any) => r.id)).toEqual([onDemo, open]);
    expect((await list(`/admin/trades/closed?user=${c.id}`)).data.rows.map((r: any) => r.id)).toEqual([closed]);
    // by email, in any case; ascending by id
    expect((await list(`/admin/trades/all?user=${encodeURIComponent(c.email.toUpperCase())}&sort=id&dir=asc`)).data.rows.map((r: any) => r.id)).toEqual([open, closed, onDemo]);
    // an unknown user or instrument matches nothing
    expect((await list('/admin/trades/all?user=nobody@nowhere.test')).data).toMatchObject({ rows: [], total: 0 });
    expect((await list('/admin/trades/all?instrument=NONE_XYZ')).data).toMatchObject({ rows: [], total: 0 });
  });

  test('filters by instrument, side and open date (UTC days), and pages 15 / 25 / 50', async () => {
    const c = await customer();
    const ids: number[] = [];
    for (let i = 0; i < 17; i++) ids.push(await openTrade(c.id, c.balanceId, { type: i % 2 ? 'sell' : 'buy', amount: '0.1' }));
    const other = await openTrade(c.id, c.balanceId, { amount: '0.1' });
    await sql`UPDATE orders SET instrument_id = ${quiet.id} WHERE id = ${other}`; // on another instrument
    await sql`UPDATE orders SET created_at = '2024-03-05T23:30:00Z' WHERE id = ${ids[0]}`;
    await sql`UPDATE orders SET created_at = '2024-03-06T00:30:00Z' WHERE id = ${ids[1]}`;

    const base = `/admin/trades/open?user=${c.id}&instrument=${inst.name}`;
    const first = await list(base);
    expect(first.data.total).toBe(17);
    expect(first.data.rows).toHaveLength(15);
    expect(first.data.filters).toMatchObject({ user: String(c.id), instrument: inst.name });
    expect((await list(`${base}&page=2`)).data.rows.map((r: any) => r.id)).toEqual([ids[1], ids[0]]);
    expect((await list(`${base}&limit=25`)).data.rows).toHaveLength(17);
    expect((await list(`${base}&limit=7`)).data.rows).toHaveLength(15); // not a page size: the default
    expect((await list(`${base}&side=sell`)).data.total).toBe(8);
    expect((await list(`${base}&side=buy`)).data.total).toBe(9);
    expect((await list(`/admin/trades/open?user=${c.id}&instrument=${quiet.name}`)).data.rows.map((r: any) => r.id)).toEqual([other]);
    expect((await list(`${base}&dateStart=2024-03-05&dateEnd=2024-03-05`)).data.rows.map((r: any) => r.id)).toEqual([ids[0]]);
    expect((await list(`${base}&dateStart=2024-03-06`)).data.total).toBe(16);
    expect((await list(`${base}&dateEnd=2024-03-06`)).data.rows.map((r: any) => r.id)).toEqual([ids[1], ids[0]]);
  });

  test('above the count limit the total is the estimate, never hiding a page that has rows', async () => {
    const c = await customer();
    for (let i = 0; i < 17; i++) await openTrade(c.id, c.balanceId, { amount: '0.1' });
    const q = { limit: 15, offset: 0, dir: 'desc' as const, user: String(c.id), instrument: '', side: '', dateStart: '', dateEnd: '' };
    expect(await listTrades(sql, 'open', q)).toMatchObject({ total: 17, estimated: false });
    const first = await listTrades(sql, 'open', q, { exactCountLimit: 5 });
    expect(first.estimated).toBe(true);
    expect(first.rows).toHaveLength(15);
    expect(first.total).toBeGreaterThanOrEqual(16); // a full page: the next one is offered
    const second = await listTrades(sql, 'open', { ...q, offset: 15 }, { exactCountLimit: 5 });
    expect(second.rows).toHaveLength(2);
    expect(second.total).toBeGreaterThanOrEqual(17);
  });

  test.each([
    ['user=abc', 'user', 'User must be a user ID or an email address'],
    ['user=0', 'user', 'User must be a user ID or an email address'],
    ['user=99999999999999999999', 'user', 'User must be a user ID or an email address'],
    ['instrument=EUR%20USD;DROP', 'instrument', 'Instrument not found'],
    ['side=long', 'side', 'Side must be buy or sell'],
    ['dateStart=2024-02-30', 'dateStart', 'The start date must be a date between 1970-01-01 and 2100-12-31.'],
    ['dateEnd=tomorrow', 'dateEnd', 'The end date must be a date between 1970-01-01 and 2100-12-31.'],
    ['dateStart=2024-05-02&dateEnd=2024-05-01', 'dateEnd', 'End date must be after start date'],
  ])('a bad filter (%s) is a 400 naming it, with an empty list', async (qs, field, message) => {
    const r = await list(`/admin/trades/all?${qs}`);
    expect(r.status).toBe(400);
    expect(r.data).toMatchObject({ rows: [], total: 0, filterError: { field, message } });
  });

  test('page, size and sort out of range are clamped, never refused', async () => {
    const r = await list('/admin/trades/closed?page=-4&limit=abc&sort=pro_loss;--&dir=sideways&search=x');
    expect(r.status).toBe(200);
    const far = await list('/admin/trades/closed?page=99999999999');
    expect(far.status).toBe(200);
    expect(far.data.rows).toEqual([]);
  });
});

describe('edit', () => {
  test("a closed trade's new close rate re-computes its P/L and posts exactly the difference as a new ledger entry, audited with the actor and address", async () => {
    const c = await customer();
    const id = await closedTrade(c.id, c.balanceId, 104); // bought 2 at 101, closed at 104: +6
    const before = await walletOf(c.balanceId);
    const closeEntry = (await sql`SELECT id, amount::text, balance_after::text FROM ledger_entries WHERE ref_kind = 'order' AND ref_id = ${String(id)}`)[0];
    expect(closeEntry.amount).toBe('6.00000000');

    const r = await act({ intent: 'edit', id: String(id), openRate: '101', closeRate: '99.875', spread: '0', profit: '', loss: '', openTime: '' });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ ok: true, toast: 'Order updated successfully' });
    // 2 × (99.875 − 101) = −2.25: the difference −8.25 is posted
    expect((await orderRow(id))).toMatchObject({ close_rate: '99.8750000000', pro_loss: '-2.25000000' });
    const after = await walletOf(c.balanceId);
    expect(before.balance).toBe('10006.00000000');
    expect(after.balance).toBe('9997.75000000');
    const edits = await sql`SELECT kind, amount::text, ref_id, actor_id FROM ledger_entries WHERE balance_id = ${c.balanceId} AND ref_kind = 'order_edit'`;
    expect(edits).toHaveLength(1);
    expect(edits[0]).toMatchObject({ kind: 'adjustment', amount: '-8.25000000', actor_id: admin.id });
    // the close's entry is as it was
    expect((await sql`SELECT amount::text, balance_after::text FROM ledger_entries WHERE id = ${closeEntry.id}`)[0]).toEqual({ amount: '6.00000000', balance_after: closeEntry.balance_after });
    const [audit] = await sql`SELECT id, actor_id, before, after, host(ip) AS ip FROM audit_events WHERE action = 'order.edit' AND target_id = ${String(id)}`;
    expect(audit).toMatchObject({ actor_id: admin.id, ip: '10.20.30.40' });
    expect(audit.before).toMatchObject({ close_rate: '104.0000000000', pro_loss: '6.00000000' });
    expect(audit.after).toMatchObject({ close_rate: '99.8750000000', pro_loss: '-2.25000000' });
    expect(edits[0].ref_id).toBe(`${id}:${audit.id}`);

    // a second edit posts its own difference: the open rate 100.375 gives 2 × (99.875 − 100.375) = −1, so +1.25
    const r2 = await act({ intent: 'edit', id: String(id), openRate: '100.375' });
    expect(r2.data.ok).toBe(true);
    const amounts = await sql`SELECT amount::text FROM ledger_entries WHERE balance_id = ${c.balanceId} AND ref_kind = 'order_edit' ORDER BY id`;
    expect(amounts.map((a) => a.amount)).toEqual(['-8.25000000', '1.25000000']);
    expect((await walletOf(c.balanceId)).balance).toBe('9999.00000000');
  });

  test("an open trade's stop loss: only it changes, the open time keeps its seconds, nothing is posted", async () => {
    const c = await customer();
    const id = await openTrade(c.id, c.balanceId);
    await sql`UPDATE orders SET created_at = '2024-06-07T08:09:10.123Z' WHERE id = ${id}`;
    const before = await orderRow(id);
    const wallet = await walletOf(c.balanceId);
    // the form as the dialog posts it: every field filled with the stored values, the close rate disabled (absent)
    const r = await act({ intent: 'edit', id: String(id), openRate: '101', spread: '0', profit: '', loss: '95.5', openTime: '2024-06-07T08:09' }, { path: '/admin/trades/open' });
    expect(r.data).toMatchObject({ ok: true, toast: 'Order updated successfully' });
    const after = await orderRow(id);
    expect(after).toMatchObject({ loss: '95.5000000000', open_rate: before.open_rate, spread: before.spread, profit: null, close_time: null });
    expect(after.created_at.toISOString()).toBe('2024-06-07T08:09:10.123Z');
    expect(await walletOf(c.balanceId)).toEqual(wallet);
    const [audit] = await sql`SELECT before, after FROM audit_events WHERE action = 'order.edit' AND target_id = ${String(id)}`;
    expect([audit.before.loss, audit.after.loss]).toEqual([null, '95.5000000000']);
    // the same form again changes nothing and writes nothing
    const again = await act({ intent: 'edit', id: String(id), openRate: '101', spread: '0', profit: '', loss: '95.5', openTime: '2024-06-07T08:09' });
    expect(again.data).toMatchObject({ ok: true, toast: 'Nothing was changed' });
    expect((await sql`SELECT count(*)::int AS n FROM audit_events WHERE action = 'order.edit' AND target_id = ${String(id)}`)[0].n).toBe(1);
    // and an emptied stop loss removes it
    await act({ intent: 'edit', id: String(id), loss: '' });
    expect((await orderRow(id)).loss).toBeNull();
  });

  test('a close rate on an open trade is refused by the web server and by the engine, and nothing changes', async () => {
    const c = await customer();
    const id = await openTrade(c.id, c.balanceId);
    const before = await orderRow(id);
    const r = await act({ intent: 'edit', id: String(id), closeRate: '120' });
    expect(r.status).toBe(400);
    expect(r.data.toast).toBe('Open trades cannot have the close rate edited');
    expect(r.data.result.error.closeRate).toEqual(['Open trades cannot have the close rate edited']);
    expect(calls).toEqual([]);
    // the engine's own rule, asked directly
    expect(await engineClient().adminEditOrder(id, { actorId: admin.id, closeRate: '120' }))
      .toEqual({ ok: false, status: 400, code: 'invalid', message: 'Open trades cannot have the close rate edited' });
    expect(await orderRow(id)).toEqual(before);
    expect((await sql`SELECT count(*)::int AS n FROM audit_events WHERE target_kind = 'order' AND target_id = ${String(id)}`)[0].n).toBe(0);
  });

  test.each([
    [{ openRate: 'abc' }, 'openRate', 'Open rate must be a number like 12.5'],
    [{ openRate: '0' }, 'openRate', 'Open rate must be greater than 0'],
    [{ openRate: '1e5' }, 'openRate', 'Open rate must be a number like 12.5'],
    [{ openRate: '123456789012345' }, 'openRate', 'Open rate is too large'],
    [{ closeRate: '1.12345678901' }, 'closeRate', 'Close rate allows at most 10 decimal places'],
    [{ spread: '-1' }, 'spread', 'Spread cannot be negative'],
    [{ profit: '1,5' }, 'profit', 'Take profit must be a number like 12.5'],
    [{ loss: '-3' }, 'loss', 'Stop loss cannot be negative'],
    [{ openTime: '2024-13-01T10:00' }, 'openTime', 'Open time must be a date and time'],
    [{ openTime: '2024-02-30T10:00' }, 'openTime', 'Open time must be a date and time'],
    [{ openTime: '2999-01-01T10:00' }, 'openTime', 'Open time must be a date and time'],
    [{ openTime: '2099-01-01T10:00' }, 'openTime', 'Open time cannot be in the future'],
  ])('%o is refused naming its field, before the engine is asked', async (fields, field, message) => {
    const c = await customer();
    const id = await closedTrade(c.id, c.balanceId, 104);
    const before = await orderRow(id);
    const r = await act({ intent: 'edit', id: String(id), ...fields as Record<string, string> });
    expect(r.status).toBe(400);
    expect(r.data.result.error[field]).toEqual([message]);
    expect(r.data.toast).toBe(message);
    expect(calls).toEqual([]);
    expect(await orderRow(id)).toEqual(before);
  });

  test('a changed take profit must keep the 0.00001 step (the engine refuses it, named); one left as stored may have more decimals', async () => {
    const c = await customer();
    const id = await openTrade(c.id, c.balanceId);
    await sql`UPDATE orders SET profit = 130.1234567 WHERE id = ${id}`; // set elsewhere with more decimals
    const kept = await act({ intent: 'edit', id: String(id), profit: '130.1234567', loss: '90' });
    expect(kept.data.ok).toBe(true);
    expect(await orderRow(id)).toMatchObject({ profit: '130.1234567000', loss: '90.0000000000' });
    const changed = await act({ intent: 'edit', id: String(id), profit: '131.1234567' });
    expect(changed.status).toBe(422);
    expect(changed.data.result.error.profit).toEqual(['Take profit allows at most 5 decimal places']);
    expect((await orderRow(id)).profit).toBe('130.1234567000');
  });

  test('an open time after the close, an unknown or deleted order, a bad id: clear refusals', async () => {
    const c = await customer();
    const id = await closedTrade(c.id, c.balanceId, 104);
    await sql`UPDATE orders SET created_at = '2024-06-01T10:00:00Z', close_time = '2024-06-01T12:00:00Z' WHERE id = ${id}`;
    const r = await act({ intent: 'edit', id: String(id), openTime: '2024-06-01T12:01' });
    expect([r.status, r.data.result.error.openTime]).toEqual([400, ['Open time must be before the close time']]);
    expect((await act({ intent: 'edit', id: '999999999999', loss: '5' })).data).toMatchObject({ ok: false, toast: 'Order not found' });
    expect((await act({ intent: 'close', id: '999999999999' })).status).toBe(404);
    const bad = await act({ intent: 'edit', id: 'abc', loss: '5' });
    expect([bad.status, bad.data.toast]).toEqual([400, 'Order not found']);
    for (const id of ['1e3', '-4', '0', '', '99999999999999999']) expect((await act({ intent: 'delete', id })).data).toMatchObject({ ok: false, toast: 'Order not found' });
    expect((await act({ intent: 'explode', id: String(id) })).status).toBe(400);
    await adminDeleteOrder(deps, { orderId: id, actorId: admin.id });
    expect((await act({ intent: 'edit', id: String(id), loss: '5' })).status).toBe(404);
    expect(calls).toEqual([]);
  });
});

describe('force close and delete', () => {
  test('an open trade is closed at the live price for the staff member, audited; a second close is refused', async () => {
    const c = await customer();
    const id = await openTrade(c.id, c.balanceId);
    book.apply({ symbol: inst.name, bid: 104, ask: 105, ts: Date.now() });
    const r = await act({ intent: 'close', id: String(id) }, { cookie: manager.cookie, ip: '2001:db8::7' });
    expect(r.data).toMatchObject({ ok: true, toast: 'Order closed successfully' });
    const row = await orderRow(id);
    expect(row).toMatchObject({ close_rate: '105.0000000000', pro_loss: '8.00000000', close_reason: 'admin' });
    expect((await walletOf(c.balanceId))).toEqual({ balance: '10008.00000000', margin: '0.00000000' });
    const [audit] = await sql`SELECT actor_id, after, host(ip) AS ip FROM audit_events WHERE action = 'order.force_close' AND target_id = ${String(id)}`;
    expect(audit).toMatchObject({ actor_id: manager.id, ip: '2001:db8::7', after: { close_rate: '105.0000000000', pro_loss: '8.00000000' } });
    const again = await act({ intent: 'close', id: String(id) });
    expect([again.status, again.data.toast]).toEqual([409, 'Order is already closed']);
  });

  test('part of an open trade: the part is a closed trade linked to it, audited; a bad quantity is refused, nothing closed', async () => {
    const c = await customer();
    const id = await openTrade(c.id, c.balanceId);
    book.apply({ symbol: inst.name, bid: 104, ask: 105, ts: Date.now() });
    const bad = await act({ intent: 'close', id: String(id), unit: 'amount', quantity: '2' }, { cookie: manager.cookie });
    expect(bad.data).toMatchObject({ ok: false, toast: "Amount must be less than the position's 2" });
    const r = await act({ intent: 'close', id: String(id), unit: 'amount', quantity: '1' }, { cookie: manager.cookie, ip: '2001:db8::7' });
    expect(r.data).toMatchObject({ ok: true, toast: 'Part of the order closed successfully' });
    const [part] = await sql`SELECT id, trade_amount::text AS amount, close_reason FROM orders WHERE position_id = ${id}`;
    expect(part).toMatchObject({ amount: '1.00000000', close_reason: 'admin' });
    expect(await orderRow(id)).toMatchObject({ close_time: null });
    const [audit] = await sql`SELECT actor_id, after FROM audit_events WHERE action = 'order.partial_close' AND target_id = ${String(id)}`;
    expect(audit).toMatchObject({ actor_id: manager.id, after: { part_id: String(part.id), trade_amount: '1.00000000' } });
    // the list shows the part linked to its trade
    const all = await list(`/admin/trades/all?user=${c.id}`);
    expect(all.data.rows.find((x: any) => x.id === Number(part.id))).toMatchObject({ positionId: id });
  });

  test("a trailing stop's moves are listed with the trade, newest first", async () => {
    const c = await customer();
    const id = await openTrade(c.id, c.balanceId);
    await sql`UPDATE orders SET trailing_distance = 5 WHERE id = ${id}`;
    await sql`INSERT INTO order_level_moves (order_id, loss_from, loss_to) VALUES (${id}, 150, 140), (${id}, 140, 130)`;
    const row = (await list(`/admin/trades/open?user=${c.id}`)).data.rows.find((x: any) => x.id === id);
    expect(row.trailing).toBe('5.0000000000');
    expect(row.moves.map((m: any) => [m.lossFrom, m.lossTo])).toEqual([['140.0000000000', '130.0000000000'], ['150.0000000000', '140.0000000000']]);
  });

  test('no live price: the close is refused with the instrument named; the engine down: 503', async () => {
    const c = await customer();
    const id = await openTrade(c.id, c.balanceId);
    await sql`UPDATE orders SET instrument_id = ${quiet.id} WHERE id = ${id}`;
    const r = await act({ intent: 'close', id: String(id) });
    expect(r.status).toBe(503);
    expect(r.data).toMatchObject({ ok: false, toast: 'No price for {{symbol}} yet', values: { symbol: quiet.name } });
    await sql`UPDATE orders SET instrument_id = ${inst.id} WHERE id = ${id}`;
    down = true;
    const d = await act({ intent: 'delete', id: String(id) });
    expect([d.status, d.data.toast]).toEqual([503, 'Something went wrong']);
    expect((await orderRow(id))).toMatchObject({ close_time: null, deleted_at: null });
  });

  test('delete: the trade leaves every list, an open one releases its margin, audited; a second delete is refused', async () => {
    const c = await customer();
    const id = await openTrade(c.id, c.balanceId);
    expect((await walletOf(c.balanceId)).margin).toBe('20.20000000');
    const r = await act({ intent: 'delete', id: String(id) }, { ip: 'not-an-address' });
    expect(r.data).toMatchObject({ ok: true, toast: 'Order deleted successfully' });
    expect((await orderRow(id)).deleted_at).not.toBeNull();
    expect(await walletOf(c.balanceId)).toEqual({ balance: '10000.00000000', margin: '0.00000000' });
    for (const [type] of PAGES) expect((await list(`/admin/trades/${type}?user=${c.id}`)).data.rows).toEqual([]);
    const [audit] = await sql`SELECT actor_id, before, ip FROM audit_events WHERE action = 'order.delete' AND target_id = ${String(id)}`;
    expect(audit).toMatchObject({ actor_id: admin.id, before: { deleted_at: null, open: true }, ip: null }); // an address the audit cannot store is left out
    const again = await act({ intent: 'delete', id: String(id) });
    expect([again.status, again.data.toast]).toEqual([404, 'Order not found']);
  });
});

describe('translations', () => {
  test("every message of the edit form's fields is in the four languages", () => {
    const bad: Record<string, string[]> = {
      openRate: ['abc', '0', '-1', '1.12345678901', '123456789012345'],
      closeRate: ['abc', '0', '-1', '1.12345678901', '123456789012345'],
      spread: ['abc', '-1', '1.123456789', '12345678901234567'],
      profit: ['abc', '-1', '1.12345678901', '123456789012345'],
      loss: ['abc', '-1', '1.12345678901', '123456789012345'],
      openTime: ['soon', '2099-01-01T00:00'],
    };
    const messages = new Set<string>(['Take profit allows at most 5 decimal places', 'Stop loss allows at most 5 decimal places']);
    for (const [field, values] of Object.entries(bad)) {
      for (const v of values) {
        const s = parseForm(new URLSearchParams({ intent: 'edit', id: '1', [field]: v }), EditTradeSchema, TRADE_PARSE);
        const errors = s.status === 'error' ? s.error?.[field] : null;
        expect(errors, `${field}=${v}`).toBeTruthy();
        for (const m of errors!) messages.add(m);
      }
    }
    for (const lang of [en, es, fr, de] as Record<string, string>[]) {
      for (const m of messages) expect(lang[m], m).toBeTruthy();
    }
  });
});
