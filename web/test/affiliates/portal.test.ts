// The affiliate portal: /affiliate lists the affiliate's own leads only (with FTD at from the first
// approved real deposit), deletes only their own (another's id → 404, nothing changes), and
// DELETE /affiliate/leads/{id} does the same; /affiliate/api generates a key shown once.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as page from '~/routes/_staff.affiliate._index.tsx';
import * as apiPage from '~/routes/_staff.affiliate.api.tsx';
import * as del from '~/routes/affiliate.leads.$id.ts';
import { authenticateKey } from '~/modules/affiliates/keys.server.ts';
import { postLeads } from '~/modules/affiliates/leads-api.server.ts';
import { BASE, createUser, get, post, postgresStore, sessionFor, settle, testSql, unique, walletFor } from '../helpers.ts';
import { affiliate, apiPost, lead, type Affiliate } from './support.ts';

const sql = testSql();
const store = postgresStore(sql);
let a: Affiliate, b: Affiliate;
beforeAll(async () => { [a, b] = await Promise.all([affiliate(sql), affiliate(sql)]); });
afterAll(async () => { await sql.end(); });

type List = { kind: 'list'; rows: { id: number; email: string; ftdAt: string | null }[]; total: number };
async function list(cookie: string, search: string): Promise<List | Response> {
  const r = await settle(Promise.resolve().then(() => page.loader({ request: get(`/affiliate?search=${encodeURIComponent(search)}`, cookie), params: {}, context: {} })));
  if (r instanceof Response) return r;
  return (r as { data: List }).data;
}
async function make(aff: Affiliate, over: Record<string, unknown> = {}): Promise<number> {
  const r = await postLeads(sql, apiPost(aff.key, lead(over)), { store });
  return (await r.json()).id;
}

describe('/affiliate', () => {
  test('shows the affiliate\'s own leads only; other roles are refused', async () => {
    const tok = unique('Own');
    const mine = await make(a, { lastName: tok });
    const theirs = await make(b, { lastName: tok });
    const la = await list(a.cookie, tok) as List;
    expect(la.rows.map((r) => r.id)).toEqual([mine]);
    const lb = await list(b.cookie, tok) as List;
    expect(lb.rows.map((r) => r.id)).toEqual([theirs]);
    for (const roleId of [1, 2, 3, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const r = await list((await sessionFor(sql, u.id)).cookie, tok);
      expect(r instanceof Response ? r.status : 200, `role ${roleId}`).not.toBe(200);
    }
  });

  test('FTD at: the first approved real deposit of the lead\'s linked customer, kept by the deposits trigger', async () => {
    const tok = unique('Ftd');
    const id = await make(a, { lastName: tok });
    const customer = await createUser(sql, { roleId: 3 });
    await sql`UPDATE leads SET user_id = ${customer.id} WHERE id = ${id}`;
    const demo = await walletFor(sql, customer.id, { mode: 'demo' });
    const real = await walletFor(sql, customer.id, { mode: 'real' });
    await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, total, status, decided_at) VALUES (${customer.id}, ${demo}, 'bank', 10, 10, 'approved', now())`;
    expect(((await list(a.cookie, tok)) as List).rows[0].ftdAt).toBeNull();
    const [d] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, total) VALUES (${customer.id}, ${real}, 'bank', 10, 10) RETURNING id`;
    expect(((await list(a.cookie, tok)) as List).rows[0].ftdAt).toBeNull();
    await sql`UPDATE deposits SET status = 'approved', decided_at = '2026-01-02T03:04:05Z' WHERE id = ${d.id}`;
    await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, total, status, decided_at) VALUES (${customer.id}, ${real}, 'bank', 5, 5, 'approved', '2026-02-01T00:00:00Z')`;
    const [row] = await sql`SELECT ftd_at, deposited_at FROM leads WHERE id = ${id}`;
    expect((row.ftd_at as Date).toISOString()).toBe('2026-01-02T03:04:05.000Z');
    expect((row.deposited_at as Date).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(((await list(a.cookie, tok)) as List).rows[0].ftdAt).toBe('2026-01-02T03:04:05.000Z');
  });

  test('delete: one\'s own lead is soft-deleted and audited; another\'s id is 404 and unchanged', async () => {
    const tok = unique('Del');
    const mine = await make(a, { lastName: tok });
    const theirs = await make(b, { lastName: tok });
    const refused = await settle(page.action({ request: post('/affiliate', { intent: 'delete', id: String(theirs) }, { cookie: a.cookie }), params: {}, context: {} }));
    expect((refused as { init: { status: number } }).init.status).toBe(404);
    expect((await sql`SELECT deleted_at FROM leads WHERE id = ${theirs}`)[0].deleted_at).toBeNull();
    // other intents of the CRM screens are not offered here
    const edit = await settle(page.action({ request: post('/affiliate', { intent: 'note', leadId: String(mine), content: 'x' }, { cookie: a.cookie }), params: {}, context: {} }));
    expect((edit as { init: { status: number } }).init.status).toBe(403);
    const done = await settle(page.action({ request: post('/affiliate', { intent: 'delete', id: String(mine) }, { cookie: a.cookie }), params: {}, context: {} }));
    expect((done as { data: { toast: string } }).data.toast).toBe('Lead deleted successfully');
    expect((await sql`SELECT deleted_at FROM leads WHERE id = ${mine}`)[0].deleted_at).not.toBeNull();
    const [audit] = await sql`SELECT actor_id FROM audit_events WHERE action = 'lead.delete' AND target_id = ${String(mine)}`;
    expect(Number(audit.actor_id)).toBe(a.id);
    expect(((await list(a.cookie, tok)) as List).rows).toEqual([]);
  });

  test('DELETE /affiliate/leads/{id}: own → 200, another\'s, deleted or bad id → 404, cross-origin refused', async () => {
    const mine = await make(a);
    const theirs = await make(b);
    const call = (id: string, cookie: string, origin: string | null = BASE) => settle(Promise.resolve().then(() => del.action({
      request: new Request(`${BASE}/affiliate/leads/${id}`, { method: 'DELETE', headers: { cookie, ...(origin ? { origin } : {}) } }), params: { id }, context: {},
    }))) as Promise<Response>;
    expect((await call(String(theirs), a.cookie)).status).toBe(404);
    expect((await sql`SELECT deleted_at FROM leads WHERE id = ${theirs}`)[0].deleted_at).toBeNull();
    expect((await call('abc', a.cookie)).status).toBe(404);
    expect((await call(String(mine), a.cookie, 'https://evil.example')).status).toBe(403);
    expect((await call(String(mine), a.cookie)).status).toBe(200);
    expect((await call(String(mine), a.cookie)).status).toBe(404);
  });
});

describe('/affiliate/api', () => {
  test('Generate answers the full key once; the page then shows only its prefix; the old key stops working', async () => {
    const u = await createUser(sql, { roleId: 4 });
    const { cookie } = await sessionFor(sql, u.id);
    const load = async () => (await apiPage.loader({ request: get('/affiliate/api', cookie), params: {}, context: {} })) as { key: { prefix: string } | null };
    expect((await load()).key).toBeNull();
    const gen = async () => ((await apiPage.action({ request: post('/affiliate/api', { intent: 'generate' }, { cookie }), params: {}, context: {} })) as unknown as { data: { key: string; toast: string } }).data;
    const first = await gen();
    expect(first.toast).toBe('API key generated successfully');
    expect(first.key).toMatch(/^ak_/);
    const view = await load();
    expect(view.key!.prefix).toBe(first.key.slice(0, 10));
    expect(JSON.stringify(view)).not.toContain(first.key);
    const second = await gen();
    expect(await authenticateKey(sql, first.key)).toBeNull();
    expect(await authenticateKey(sql, second.key)).toMatchObject({ userId: u.id });
    // another role may not open it; a cross-origin post is refused
    const admin = await createUser(sql, { roleId: 1 });
    const adminCookie = (await sessionFor(sql, admin.id)).cookie;
    const r = await settle(Promise.resolve().then(() => apiPage.loader({ request: get('/affiliate/api', adminCookie), params: {}, context: {} })));
    expect((r as Response).status).toBe(403);
    const x = await settle(Promise.resolve().then(() => apiPage.action({ request: post('/affiliate/api', { intent: 'generate' }, { cookie, origin: 'https://evil.example' }), params: {}, context: {} })));
    expect((x as Response).status).toBe(403);
  });
});
