// Staff notifications (modules/notifications notifyStaff) against PostgreSQL, the engine's live
// events mocked at the network boundary: a withdrawal request and a manual deposit notify the
// active admins and managers, a KYC upload the active admins, a lead assignment its agent; never a
// customer, an inactive or deleted account or another agent. The rows are written in the change's
// own transaction (same now() as the change; a refused request writes none) and published after
// it. The back-office's ticket asks for the user topic alone.
//
// Other test files create staff in the same database at the same time, so "exactly the right
// staff" is: every eligible staff member that existed before the event, none that was not eligible,
// and nobody else than the eligible ones that existed after it.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { env } from '~/shared/env.server.ts';
import { createDeposit, requestWithdrawal } from '~/modules/money/money.server.ts';
import { submitKyc } from '~/modules/kyc/kyc.server.ts';
import { editLead } from '~/modules/crm/leads.server.ts';
import { notificationText } from '~/modules/notifications/notification-text.tsx';
import { formatterFor } from '~/components/ui/format.ts';
import { loader as ticketLoader } from '~/routes/dashboard.ticket.ts';
import { createUser, ensureGateways, get, sessionFor, testSql, unique, walletFor } from '../helpers.ts';
import { crmSupport } from '../crm/support.ts';

const sql = testSql(6);
const published: { topic: string; event: string; data: { id: number; url: string | null; data: { kind: string } } }[] = [];
mockServer(
  http.post(`${env().ENGINE_URL}/v1/events`, async ({ request }) => {
    published.push(await request.json() as (typeof published)[number]);
    return HttpResponse.json({ ok: true, id: '1-0' });
  }),
);
beforeAll(async () => {
  await ensureGateways(sql);
});
afterEach(() => { published.length = 0; });
afterAll(async () => { await sql.end(); });

const BANK = { bankName: 'Chase', accountName: 'x', accountNumber: '12345678', swiftCode: 'CHASUS33', bankCountry: 'United States' };

/** A customer with a unique name (the staff's notifications name them) and a credited real wallet. */
async function customer(credit = '1000') {
  const u = await createUser(sql);
  const name = unique('Customer ');
  await sql`UPDATE users SET full_name = ${name} WHERE id = ${u.id}`;
  return { ...u, name, wallet: await walletFor(sql, u.id, { credit: credit === '0' ? undefined : credit }) };
}

/** One of each kind of account that must never hear of a customer's request, plus eligible ones. */
async function cast() {
  const [admin, manager, inactiveAdmin, deletedManager, affiliate, agent, ret, bystander] = await Promise.all(
    [1, 2, 1, 2, 4, 5, 6, 3].map((roleId) => createUser(sql, { roleId })));
  await sql`UPDATE users SET is_active = false WHERE id = ${inactiveAdmin.id}`;
  await sql`UPDATE users SET deleted_at = now() WHERE id = ${deletedManager.id}`;
  return { admin, manager, inactiveAdmin, deletedManager, affiliate, agent, ret, bystander };
}

const eligible = async (roles: number[]) => new Set((await sql`
  SELECT id FROM users WHERE role_id = ANY(${roles}::smallint[]) AND is_active AND deleted_at IS NULL`).map((r) => Number(r.id)));

/** The recipients of the event (its kind and the id it names). */
const recipients = async (kind: string, id: number) => new Set((await sql`
  SELECT user_id FROM notifications WHERE data->>'kind' = ${kind} AND data->>'id' = ${String(id)}`).map((r) => Number(r.user_id)));

function expectExactly(got: Set<number>, before: Set<number>, after: Set<number>, never: number[]) {
  for (const id of before) expect(got.has(id), `eligible ${id} notified`).toBe(true);
  for (const id of got) expect(after.has(id), `${id} is eligible`).toBe(true);
  for (const id of never) expect(got.has(id), `${id} never notified`).toBe(false);
}

describe('a withdrawal request', () => {
  test('notifies every active admin and manager, nobody else, in its own transaction, then live', async () => {
    const c = await cast();
    const who = await customer();
    const before = await eligible([1, 2]);
    const r = await requestWithdrawal(sql, { userId: who.id, balanceId: who.wallet, amount: '100', bank: BANK }, async () => 0);
    expect(r.ok).toBe(true);
    const id = r.ok ? r.id : 0;
    const got = await recipients('withdrawal.requested', id);
    expectExactly(got, before, await eligible([1, 2]),
      [c.inactiveAdmin.id, c.deletedManager.id, c.affiliate.id, c.agent.id, c.ret.id, c.bystander.id, who.id]);
    expect(got.has(c.admin.id) && got.has(c.manager.id)).toBe(true);

    const [n] = await sql`SELECT title, description, url, data FROM notifications WHERE user_id = ${c.manager.id} AND data->>'kind' = 'withdrawal.requested'`;
    expect(n).toEqual({
      title: `Withdrawal #${id} requested`, description: `${who.name} asked to withdraw 100.00 USD.`, url: '/admin/withdraws/pending',
      data: { kind: 'withdrawal.requested', id, amount: '100.00', currency: 'USD', customer: who.name },
    });
    // the same transaction: PostgreSQL's now() is the transaction's start, the same for both rows
    const [same] = await sql`SELECT bool_and(n.created_at = w.created_at) AS same FROM notifications n, withdrawals w
                              WHERE w.id = ${id} AND n.data->>'kind' = 'withdrawal.requested' AND n.data->>'id' = ${String(id)}`;
    expect(same.same).toBe(true);
    // published after commit, one live event per recipient on their own topic
    const mine = published.filter((p) => p.data.data?.kind === 'withdrawal.requested' && p.data.url === '/admin/withdraws/pending' && p.data.id);
    expect(mine.map((p) => p.topic)).toEqual(expect.arrayContaining([`user:${c.admin.id}`, `user:${c.manager.id}`]));
    expect(mine.some((p) => p.topic === `user:${c.inactiveAdmin.id}` || p.topic === `user:${who.id}`)).toBe(false);
  });

  test('a refused request (beyond free margin) and a replayed one write no notification', async () => {
    const who = await customer('50');
    expect(await requestWithdrawal(sql, { userId: who.id, balanceId: who.wallet, amount: '100', bank: BANK }, async () => 0)).toMatchObject({ ok: false, field: 'amount' });
    const ref = unique('ref');
    const first = await requestWithdrawal(sql, { userId: who.id, balanceId: who.wallet, amount: '10', bank: BANK, clientRef: ref }, async () => 0);
    const again = await requestWithdrawal(sql, { userId: who.id, balanceId: who.wallet, amount: '10', bank: BANK, clientRef: ref }, async () => 0);
    expect(again).toMatchObject({ ok: true, replayed: true });
    const rows = await sql`SELECT data->>'id' AS id, count(DISTINCT user_id)::int AS people, count(*)::int AS n FROM notifications
                            WHERE data->>'kind' = 'withdrawal.requested' AND data->>'customer' = ${who.name} GROUP BY 1`;
    // only the accepted one, once per staff member
    expect(rows).toHaveLength(1);
    expect(rows[0].id).toBe(String(first.ok ? first.id : 0));
    expect(rows[0].n).toBe(rows[0].people);
  });
});

describe('a manual deposit', () => {
  test('bank or crypto: admins and managers, to the pending deposits; a double submit notifies once', async () => {
    const c = await cast();
    const who = await customer('0');
    const before = await eligible([1, 2]);
    const ref = unique('ref');
    const d = await createDeposit(sql, { userId: who.id, balanceId: who.wallet, gateway: 'btc', amount: '200', clientRef: ref });
    expect(d).toMatchObject({ ok: true, replayed: false });
    const again = await createDeposit(sql, { userId: who.id, balanceId: who.wallet, gateway: 'btc', amount: '200', clientRef: ref });
    expect(again).toMatchObject({ ok: true, replayed: true });
    const id = d.ok ? d.id : 0;
    expectExactly(await recipients('deposit.submitted', id), before, await eligible([1, 2]),
      [c.inactiveAdmin.id, c.deletedManager.id, c.affiliate.id, c.agent.id, c.ret.id, c.bystander.id, who.id]);
    const notes = await sql`SELECT title, url, data, created_at = (SELECT created_at FROM deposits WHERE id = ${id}) AS same
                              FROM notifications WHERE user_id = ${c.admin.id} AND data->>'kind' = 'deposit.submitted'`;
    expect(notes).toEqual([{
      title: `Deposit #${id} awaits approval`, url: '/admin/deposits?status=pending', same: true,
      data: { kind: 'deposit.submitted', id, amount: '200.00', currency: 'USD', gateway: 'Bitcoin', customer: who.name },
    }]);
    expect(published.filter((p) => p.topic === `user:${c.admin.id}`)).toHaveLength(1);
  });

  test('a refused deposit writes none', async () => {
    const who = await customer('0');
    expect(await createDeposit(sql, { userId: who.id, balanceId: who.wallet, gateway: 'bank', amount: '-5' })).toMatchObject({ ok: false });
    expect(await sql`SELECT 1 FROM notifications WHERE data->>'customer' = ${who.name}`).toHaveLength(0);
    expect(published).toHaveLength(0);
  });
});

describe('a KYC upload', () => {
  test('notifies the active admins only, to the review page', async () => {
    const c = await cast();
    const who = await customer('0');
    const [front] = await sql`INSERT INTO uploads (owner_id, kind, original_name, stored_name, mime, size, sha256)
                              VALUES (${who.id}, 'kyc_front', 'f.png', ${randomBytes(16).toString('hex') + '.png'}, 'image/png', 10, ${'0'.repeat(64)}) RETURNING id`;
    const before = await eligible([1]);
    const r = await submitKyc(sql, { userId: who.id, type: 'passport', front: Number(front.id) });
    expect(r.ok).toBe(true);
    const id = r.ok ? r.id : 0;
    const got = await recipients('kyc.submitted', id);
    expectExactly(got, before, await eligible([1]), [c.manager.id, c.inactiveAdmin.id, c.affiliate.id, c.agent.id, c.bystander.id, who.id]);
    const [n] = await sql`SELECT url, data FROM notifications WHERE user_id = ${c.admin.id} AND data->>'kind' = 'kyc.submitted'`;
    expect(n).toEqual({ url: '/admin/kyc?status=pending', data: { kind: 'kyc.submitted', id, type: 'passport', customer: who.name } });
    // a second submission while this one is under review is refused: no notification
    expect(await submitKyc(sql, { userId: who.id, type: 'passport', front: Number(front.id) })).toMatchObject({ ok: false, status: 409 });
    expect(await sql`SELECT 1 FROM notifications WHERE user_id = ${c.admin.id} AND data->>'kind' = 'kyc.submitted'`).toHaveLength(1);
  });
});

describe('leads assigned to an agent', () => {
  const crm = crmSupport(sql);
  const assigned = async (userId: number) => sql`
    SELECT title, description, url, data FROM notifications WHERE user_id = ${userId} AND data->>'kind' = 'leads.assigned' ORDER BY id`;

  test('bulk assign: one notification to that agent with the count; nobody else', async () => {
    const admin = await crm.staff(1);
    const [agentA, agentB, ret] = await Promise.all([crm.staff(5), crm.staff(5), crm.staff(6)]);
    await sql`UPDATE users SET full_name = 'Ada Admin' WHERE id = ${admin.id}`;
    const tok = unique('sn');
    await Promise.all([crm.lead(tok), crm.lead(tok), crm.lead(tok), crm.lead(tok, { group: 'retentions' })]);
    const r = await crm.act(`/admin/crm/sales/all?search=${tok}`, { intent: 'assign', agentId: String(agentA.id), all: '1' }, admin.cookie);
    expect(r.data).toMatchObject({ ok: true, count: 3 });
    expect(await assigned(agentA.id)).toEqual([{
      title: 'Leads assigned to you', description: '3 leads were assigned to you by Ada Admin.', url: '/admin/crm/sales/all',
      data: { kind: 'leads.assigned', count: 3, list: 'sales', by: 'Ada Admin' },
    }]);
    expect(published.map((p) => p.topic)).toEqual([`user:${agentA.id}`]);
    expect(await assigned(agentB.id)).toHaveLength(0);
    expect(await sql`SELECT 1 FROM notifications WHERE user_id = ${admin.id}`).toHaveLength(0);

    const r2 = await crm.act(`/admin/crm/retention?search=${tok}`, { intent: 'assign', agentId: String(ret.id), all: '1' }, admin.cookie);
    expect(r2.data).toMatchObject({ ok: true, count: 1 });
    expect(await assigned(ret.id)).toMatchObject([{ description: 'A lead was assigned to you by Ada Admin.', url: '/admin/crm/retention', data: { count: 1, list: 'retention' } }]);

    // again over the same list: only the lead not already theirs counts, and is told
    await crm.lead(tok);
    const r3 = await crm.act(`/admin/crm/sales/all?search=${tok}`, { intent: 'assign', agentId: String(agentA.id), all: '1' }, admin.cookie);
    expect(r3.data).toMatchObject({ ok: true, count: 1 });
    expect((await assigned(agentA.id)).map((n) => n.data.count)).toEqual([3, 1]);
    // nothing new to them: no notification
    expect((await crm.act(`/admin/crm/sales/all?search=${tok}`, { intent: 'assign', agentId: String(agentA.id), all: '1' }, admin.cookie)).data).toMatchObject({ ok: true, count: 0 });
    expect(await assigned(agentA.id)).toHaveLength(2);

    // refused (an agent may not assign): nothing written
    expect((await crm.act('/admin/crm/sales/all', { intent: 'assign', agentId: String(agentB.id), all: '1' }, agentA.cookie)).status).toBe(403);
    expect(await assigned(agentB.id)).toHaveLength(0);
  });

  test('Edit Lead: a new agent or retention agent is told (once each), an unchanged or inactive one is not', async () => {
    const admin = await crm.staff(1);
    const [agentA, agentB, ret, sleepy] = await Promise.all([crm.staff(5), crm.staff(5), crm.staff(6), crm.staff(5)]);
    await sql`UPDATE users SET is_active = false WHERE id = ${sleepy.id}`;
    const tok = unique('se');
    const id = await crm.lead(tok, { agent: agentA.id });
    const edit = (o: { agentId: number | null; retId: number | null }) => editLead(sql, { id: admin.id, roleId: 1 }, {
      id, firstName: 'Lee', lastName: tok, email: 'lee@example.com', phone: '+34 600 000 000', country: 'Spain', city: 'Madrid',
      funnelLink: null, reference: null, leadSourceId: null, managerId: null, ...o,
    }, null);
    expect(await edit({ agentId: agentA.id, retId: null })).toMatchObject({ ok: true });
    expect(await assigned(agentA.id)).toHaveLength(0); // already theirs
    expect(await edit({ agentId: agentB.id, retId: ret.id })).toMatchObject({ ok: true });
    expect(await assigned(agentB.id)).toMatchObject([{ url: '/admin/crm/sales/all', data: { count: 1, list: 'sales' } }]);
    expect(await assigned(ret.id)).toMatchObject([{ url: '/admin/crm/retention', data: { count: 1, list: 'retention' } }]);
    expect(published.map((p) => p.topic).sort()).toEqual([`user:${agentB.id}`, `user:${ret.id}`].sort());
    // an inactive agent may hold leads but hears nothing
    expect(await edit({ agentId: sleepy.id, retId: ret.id })).toMatchObject({ ok: true });
    expect(await assigned(sleepy.id)).toHaveLength(0);
    expect(await assigned(ret.id)).toHaveLength(1);
    // a refused edit (a retention agent as the sales agent) writes none
    expect(await edit({ agentId: ret.id, retId: null })).toMatchObject({ ok: false, status: 400 });
    expect(await assigned(ret.id)).toHaveLength(1);
  });
});

describe('the reader\'s language', () => {
  test('staff notifications are worded and formatted at render time', async () => {
    const i18next = (await import('i18next')).default.createInstance();
    await i18next.init({ lng: 'de', resources: { de: { translation: {
      'Withdrawal #{{id}} requested': 'Auszahlung Nr. {{id}} beantragt', '{{customer}} asked to withdraw {{amount}}.': '{{customer}} möchte {{amount}} auszahlen.',
      '{{count}} leads were assigned to you by {{by}}.': '{{by}} hat Ihnen {{count}} Leads zugewiesen.', Passport: 'Reisepass',
      '{{customer}} uploaded a document ({{type}}).': '{{customer}} hat ein Dokument hochgeladen ({{type}}).',
    } } }, interpolation: { escapeValue: false } });
    const t = i18next.t.bind(i18next) as unknown as (k: string, v?: Record<string, unknown>) => string;
    const f = formatterFor('de');
    expect(notificationText({ title: 'x', description: 'y', data: { kind: 'withdrawal.requested', id: 7, amount: '1234.50', currency: 'USD', customer: 'Ann' } }, t, f))
      .toEqual({ title: 'Auszahlung Nr. 7 beantragt', description: `Ann möchte ${f.money('1234.50', 'USD')} auszahlen.` });
    expect(notificationText({ title: 'x', description: 'y', data: { kind: 'leads.assigned', count: 1200, list: 'sales', by: 'Bo' } }, t, f).description)
      .toBe('Bo hat Ihnen 1.200 Leads zugewiesen.');
    expect(notificationText({ title: 'x', description: 'y', data: { kind: 'kyc.submitted', id: 3, type: 'passport', customer: 'Ann' } }, t, f).description)
      .toBe('Ann hat ein Dokument hochgeladen (Reisepass).');
  });
});

describe('the back-office ticket', () => {
  test('?topics=user: the user\'s own topic only, no prices', async () => {
    const admin = await createUser(sql, { roleId: 1 });
    const { cookie } = await sessionFor(sql, admin.id);
    const res = await ticketLoader({ request: get('/dashboard/ticket?topics=user', cookie), params: {}, context: {} }) as Response;
    expect(res.status).toBe(200);
    expect((await res.json()).topics).toBe(`user:${admin.id}`);
    const plain = await ticketLoader({ request: get('/dashboard/ticket', cookie), params: {}, context: {} }) as Response;
    expect((await plain.json()).topics).toBe(`prices,user:${admin.id}`);
    for (const q of ['abc', '', '-1', '1e308', 'user:1', 'prices,user']) {
      const bad = await ticketLoader({ request: get(`/dashboard/ticket?topics=${encodeURIComponent(q)}`, cookie), params: {}, context: {} }) as Response;
      expect([bad.status, (await bad.json()).message]).toEqual([400, 'Unknown topics: use prices, heartbeat, user or exposure']);
    }
  });
});
