// The staff list of pending orders (/admin/trades/pending) against PostgreSQL: the roles of the
// trade lists, the status filter (pending by default, filled, cancelled, expired, all) and the
// others, a bad filter named (400, never a 500), and the staff cancel: answered in this process
// (msw) by the engine's own pending commands (engine/src/orders/pending.ts) on the same database,
// so the audit row and the row's status below are the ones the engine writes.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { AdminCancelPendingBody } from '@broker/engine/contract/pending';
import { Book } from '../../../engine/src/book/book.ts';
import { connect as engineConnect } from '../../../engine/src/db.ts';
import { adminCancelPending, placePending, type PendingDeps } from '../../../engine/src/orders/pending.ts';
import { STATUS } from '../../../engine/src/orders/results.ts';
import { testSql, createUser, sessionFor, get, post, settle, unique, walletFor } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import { loader, action } from '~/routes/_staff.admin.trades.pending.tsx';

const sql = testSql();
const esql = engineConnect(process.env.DATABASE_URL!, { max: 3 });
const book = new Book();
const deps: PendingDeps = { orders: { sql: esql, book } };
const ENGINE = env().ENGINE_URL;

mockServer(
  http.post<{ id: string }>(`${ENGINE}/v1/admin/pending-orders/:id/cancel`, async ({ request, params }) => {
    const body = AdminCancelPendingBody.safeParse(await request.json());
    if (!body.success) return HttpResponse.json({ message: 'Invalid request', code: 'invalid' }, { status: 400 });
    const r = await adminCancelPending(deps, { pendingId: Number(params.id), actorId: body.data.actorId, ip: body.data.ip });
    return r.ok ? HttpResponse.json(r) : HttpResponse.json({ message: r.message, code: r.code }, { status: STATUS[r.code] });
  }),
);

let inst: { id: number; name: string };
let admin: { id: number; cookie: string };

beforeAll(async () => {
  const name = unique('PND').toUpperCase().slice(0, 20) + '_USD';
  const [i] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, digits, bids, asks)
                        VALUES (${name}, 'PND', 'USD', 'crypto', 10, 2, 100, 101) RETURNING id`;
  inst = { id: Number(i.id), name };
  book.setInstruments([{ id: inst.id, name, base: 'PND', quote: 'USD', category: 'crypto', tradable: true, leverage: 10, digits: 2 }]);
  book.apply({ symbol: name, bid: 100, ask: 101, ts: Date.now() });
  const a = await createUser(sql, { roleId: 1 });
  admin = { id: a.id, cookie: (await sessionFor(sql, a.id)).cookie };
});
afterAll(async () => { await sql.end(); await esql.end(); });

async function customer() {
  const u = await createUser(sql);
  const balanceId = await walletFor(sql, u.id, { credit: '10000' });
  await sql`UPDATE users SET active_balance_id = ${balanceId} WHERE id = ${u.id}`;
  return { ...u, balanceId };
}

async function pending(userId: number, price = '95') {
  const r = await placePending(deps, { userId, type: 'buy', orderType: 'limit', price, amount: '2', instrument: inst.name, expiry: 'gtc' });
  if (!r.ok) throw new Error(r.message);
  return r.pending.id;
}

async function list(query: string, cookie = admin.cookie) {
  const r = await settle(loader({ request: get(`/admin/trades/pending${query}`, cookie), params: {}, context: {} })) as { data: any; init: { status?: number } | null } | Response;
  if (r instanceof Response) return { status: r.status, data: null as any };
  return { status: r.init?.status ?? 200, data: r.data };
}

async function act(body: Record<string, string>, cookie = admin.cookie) {
  const r = await settle(action({ request: post('/admin/trades/pending', body, { cookie }), params: {}, context: { clientIp: '10.20.30.40' } })) as { data: any; init: { status?: number } | null } | Response;
  if (r instanceof Response) return { status: r.status, data: null as any };
  return { status: r.init?.status ?? 200, data: r.data };
}

describe('the staff list of pending orders', () => {
  test('customers and the other staff roles are refused; nothing changes', async () => {
    const c = await customer();
    const id = await pending(c.id);
    for (const roleId of [3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const cookie = (await sessionFor(sql, u.id)).cookie;
      expect((await list('', cookie)).status).toBe(403);
      expect((await act({ intent: 'cancel-pending', id: String(id) }, cookie)).status).toBe(403);
    }
    expect((await sql`SELECT status FROM pending_orders WHERE id = ${id}`)[0].status).toBe('pending');
  });

  test('pending by default; filtered by status and user; a bad status is named', async () => {
    const c = await customer();
    const a = await pending(c.id, '95');
    const b = await pending(c.id, '94');
    await sql`UPDATE pending_orders SET status = 'expired', cancel_reason = 'expired', done_at = now() WHERE id = ${b}`;
    const mine = (r: { data: { rows: { id: number }[] } }) => r.data.rows.map((x) => x.id).filter((id) => id === a || id === b);
    expect(mine(await list(`?user=${c.id}`))).toEqual([a]);
    expect(mine(await list(`?user=${c.id}&status=expired`))).toEqual([b]);
    expect(mine(await list(`?user=${c.id}&status=`))).toEqual([b, a]);
    const row = (await list(`?user=${c.email}&status=expired`)).data.rows[0];
    expect(row).toMatchObject({ id: b, type: 'buy', orderType: 'limit', price: '94.0000000000', status: 'expired', cancelReason: 'expired' });
    const bad = await list('?status=open');
    expect(bad.status).toBe(400);
    expect(bad.data.filterError).toEqual({ field: 'status', message: 'Status must be pending, filled, cancelled or expired' });
  });

  test('staff cancel: the engine cancels it, audited with the staff member and address; a second cancel is refused', async () => {
    const c = await customer();
    const id = await pending(c.id);
    const r = await act({ intent: 'cancel-pending', id: String(id) });
    expect(r.status).toBe(200);
    expect(r.data.toast).toBe('Pending order cancelled');
    expect((await sql`SELECT status, cancel_reason, cancelled_by FROM pending_orders WHERE id = ${id}`)[0])
      .toMatchObject({ status: 'cancelled', cancel_reason: 'staff' });
    const [audit] = await sql`SELECT actor_id, action, host(ip) AS ip FROM audit_events WHERE target_kind = 'pending_order' AND target_id = ${String(id)}`;
    expect([Number(audit.actor_id), audit.action, audit.ip]).toEqual([admin.id, 'pending.cancel', '10.20.30.40']);
    const again = await act({ intent: 'cancel-pending', id: String(id) });
    expect(again.status).toBe(409);
    expect(again.data.toast).toBe('Order is no longer pending');
    expect((await act({ intent: 'cancel-pending', id: 'x1' })).status).toBe(400);
  });
});
