// Login-as (docs/specs.md#login-as) against PostgreSQL: a login-as session ends with the staff
// member's right to it (deactivated, deleted, new password, role lost, customer out of scope),
// the customer's files are read with the staff member's rights, withdrawals are the customer's
// own, and every other change inside login-as is audited with the staff member as the actor.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { env } from '~/shared/env.server.ts';
import { findSession } from '~/modules/auth/session.server.ts';
import { SESSION_COOKIE } from '~/shared/cookies.server.ts';
import { routeAccess, type RoleId } from '~/modules/auth/permissions.ts';
import { startImpersonation } from '~/modules/auth/impersonation.server.ts';
import { changePassword } from '~/modules/auth/security.server.ts';
import { deleteUser, editUser } from '~/modules/users/users.server.ts';
import { receiveUploads, type StoredUpload } from '~/modules/uploads/uploads.server.ts';
import { loader as uploadLoader } from '~/routes/uploads.$id.ts';
import * as withdraws from '~/routes/_client.withdraws.tsx';
import * as profile from '~/routes/_client.profile.tsx';
import * as security from '~/routes/_client.security.tsx';
import * as kyc from '~/routes/_client.kyc.tsx';
import * as bank from '~/routes/_client.deposits.bank.$id.tsx';
import * as deposits from '~/routes/_client.deposits._index.tsx';
import * as dashboard from '~/routes/_client.dashboard.tsx';
import * as switchWallet from '~/routes/dashboard.switch-wallet.tsx';
import * as notifications from '~/routes/_client.notifications.tsx';
import * as pricing from '~/routes/_client.pricing.tsx';
import {
  answerOf, createUser, ensureGateways, get, PASSWORD, post, postgresStore, sessionFor, settle, testSql, unique, walletFor, type TestUser,
} from '../helpers.ts';
import { PDF, png, uploadRequest, type Part } from '../uploads/fixtures.ts';

// the engine, at the network: staff notifications published after commit, and an order placed
mockServer(
  http.post(`${env().ENGINE_URL}/v1/events`, () => HttpResponse.json({ ok: true, id: 1 })),
  http.post(`${env().ENGINE_URL}/v1/orders`, async ({ request }) => {
    const body = (await request.json()) as { userId: number };
    return HttpResponse.json({ ok: true, replayed: false, order: {
      id: 1, user_id: body.userId, balance_id: 1, instrument_id: 1, instrument: 'LAS_USD', type: 'buy', kind: 'forex', trade_amount: '1000.00000000',
      lots: null, open_rate: '1.1002000000', close_rate: null, exchange_rate: '1.0000000000', spread: '0.00000000', profit: null, loss: null,
      pro_loss: null, margin_used: '11.00000000', leverage: 100, created_at: new Date().toISOString(), close_time: null, close_reason: null,
      closed_by: null, deleted_at: null,
    } }, { status: 201 });
  }),
);

const dir = mkdtempSync(path.join(tmpdir(), 'login-as-'));
process.env.UPLOAD_DIR = dir;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sql = testSql();
afterAll(() => sql.end());
const store = postgresStore(sql);

interface LoginAs { staff: TestUser; staffSession: { id: number; token: string }; customer: TestUser; token: string; id: number; cookie: string }

/** A staff member of `roleId` signed in, a customer in their scope, and a login-as session made by startImpersonation. */
async function loginAs(roleId: 1 | 2 | 6): Promise<LoginAs> {
  const staff = await createUser(sql, { roleId });
  const customer = await createUser(sql, { roleId: 3 });
  await sql`INSERT INTO leads (email, user_id, ret_id) VALUES (${customer.email}, ${customer.id}, ${roleId === 6 ? staff.id : null})`;
  const staffSession = await sessionFor(sql, staff.id);
  const current = await findSession(sql, staffSession.token);
  const s = await startImpersonation(sql, current!, customer.id, { ip: null });
  expect(await findSession(sql, s.token)).toMatchObject({ impersonatorId: staff.id, user: { id: customer.id } });
  return { staff, staffSession, customer, token: s.token, id: s.id, cookie: `${SESSION_COOKIE}=${s.token}` };
}

const admin = async () => ({ id: (await createUser(sql, { roleId: 1 })).id, roleId: 1, ip: null });
const staffForm = (u: TestUser, over: Record<string, unknown> = {}) => ({
  id: u.id, fullName: 'Staff Member', email: u.email, password: undefined as string | undefined, roleId: u.roleId,
  isEmailVerified: true, isActive: true, whitelist: '', ...over,
});
const revoked = async (id: number) => (await sql`SELECT revoked_at IS NOT NULL AS r FROM sessions WHERE id = ${id}`)[0].r;

describe('a login-as session ends with the staff member\'s right to it', () => {
  test('deactivated by an admin: the session is revoked, and a deactivation made any other way ends it too', async () => {
    const a = await loginAs(2);
    expect((await editUser(sql, await admin(), staffForm(a.staff, { isActive: false }))).ok).toBe(true);
    expect(await findSession(sql, a.token)).toBeNull();
    expect(await revoked(a.id)).toBe(true);

    const b = await loginAs(1);
    await sql`UPDATE users SET is_active = false WHERE id = ${b.staff.id}`;
    expect(await findSession(sql, b.token)).toBeNull();
  });

  test('deleted', async () => {
    const a = await loginAs(6);
    expect((await deleteUser(sql, await admin(), a.staff.id, 'users')).ok).toBe(true);
    expect(await findSession(sql, a.token)).toBeNull();
    expect(await revoked(a.id)).toBe(true);
  });

  test('a new password, set by an admin or by the staff member from another session', async () => {
    const a = await loginAs(2);
    expect((await editUser(sql, await admin(), staffForm(a.staff, { password: 'Another-pass-2' }))).ok).toBe(true);
    expect(await findSession(sql, a.token)).toBeNull();

    const b = await loginAs(1);
    const elsewhere = await sessionFor(sql, b.staff.id);
    const r = await changePassword(sql, store, { userId: b.staff.id, sessionId: elsewhere.id, currentPassword: PASSWORD, newPassword: 'Another-pass-2', ip: null });
    expect(r.ok).toBe(true);
    expect(await findSession(sql, b.token)).toBeNull();
    expect(await findSession(sql, elsewhere.token)).not.toBeNull();
  });

  test('the staff session that opened it is signed out', async () => {
    const a = await loginAs(1);
    await sql`UPDATE sessions SET revoked_at = now() WHERE id = ${a.staffSession.id}`;
    expect(await findSession(sql, a.token)).toBeNull();
  });

  test('the role that allowed it is lost (a manager made a sales agent)', async () => {
    const a = await loginAs(2);
    expect((await editUser(sql, await admin(), staffForm(a.staff, { roleId: 5 }))).ok).toBe(true);
    expect(await findSession(sql, a.token)).toBeNull();
    // given back, the session is the staff member's again: the rule is read on every request
    await sql`UPDATE users SET role_id = 2 WHERE id = ${a.staff.id}`;
    expect(await findSession(sql, a.token)).not.toBeNull();
  });

  test('the roles whose login-as session lives are the permission map\'s login-as roles (the SQL rule and the map agree)', async () => {
    const allowed = routeAccess('/admin/customers/login-as/:id').roles;
    for (const roleId of [1, 2, 4, 5, 6] as RoleId[]) {
      const staff = await createUser(sql, { roleId });
      const customer = await createUser(sql, { roleId: 3 });
      await sql`INSERT INTO leads (email, user_id, agent_id, ret_id) VALUES (${customer.email}, ${customer.id}, ${staff.id}, ${staff.id})`;
      const s = await sessionFor(sql, customer.id, { impersonatorId: staff.id });
      expect(!!(await findSession(sql, s.token)), `role ${roleId}`).toBe(allowed !== 'public' && allowed.includes(roleId));
    }
  });

  test('the customer leaves the retention agent\'s scope', async () => {
    const a = await loginAs(6);
    const other = await createUser(sql, { roleId: 6 });
    await sql`UPDATE leads SET ret_id = ${other.id} WHERE user_id = ${a.customer.id}`;
    expect(await findSession(sql, a.token)).toBeNull();
  });

  test('nothing changes for the staff member\'s other sessions or the customer\'s own', async () => {
    const a = await loginAs(6);
    const own = await sessionFor(sql, a.customer.id);
    await sql`UPDATE leads SET ret_id = NULL WHERE user_id = ${a.customer.id}`;
    expect(await findSession(sql, a.token)).toBeNull();
    expect(await findSession(sql, own.token)).not.toBeNull();
    expect(await findSession(sql, a.staffSession.token)).not.toBeNull();
  });
});

describe("the customer's files inside login-as", () => {
  async function upload(u: TestUser, field: string, kind: string, file: Uint8Array): Promise<StoredUpload> {
    const r = await receiveUploads(sql, uploadRequest([{ name: field, file, filename: `${field}.bin` }]), { id: u.id, roleId: u.roleId }, { [field]: kind });
    if (!r.ok) throw new Error(r.error.message);
    return r.files[field]!;
  }
  const open = async (id: number, cookie: string) =>
    ((await settle(uploadLoader({ request: get(`/uploads/${id}`, cookie), params: { id: String(id) }, context: {} }))) as Response).status;

  test('KYC documents are the admins\': a manager or retention agent signed in as the customer gets 404', async () => {
    for (const [role, kyc, proof] of [[1, 200, 200], [2, 404, 200], [6, 404, 404]] as const) {
      const a = await loginAs(role);
      const front = await upload(a.customer, 'front', 'kyc_front', png(3, 3));
      const deposit = await upload(a.customer, 'proof', 'deposit_proof', PDF);
      expect(await open(front.id, a.cookie), `role ${role} kyc`).toBe(kyc);
      expect(await open(deposit.id, a.cookie), `role ${role} proof`).toBe(proof);
      // the customer's own session still reads both
      const own = await sessionFor(sql, a.customer.id);
      expect(await open(front.id, own.cookie)).toBe(200);
    }
  });

  test("the KYC page lists the documents' files only to a staff member who may read them", async () => {
    for (const [role, listed] of [[1, true], [2, false]] as const) {
      const a = await loginAs(role);
      const front = await upload(a.customer, 'front', 'kyc_front', png(3, 3));
      await sql`INSERT INTO kyc_documents (user_id, type, front_upload_id) VALUES (${a.customer.id}, 'passport', ${front.id})`;
      const page = (await kyc.loader({ request: get('/kyc', a.cookie), params: {}, context: {} })) as Awaited<ReturnType<typeof kyc.loader>>;
      expect(page.document!.files.front?.id ?? null, `role ${role}`).toBe(listed ? front.id : null);
      const own = (await kyc.loader({ request: get('/kyc', (await sessionFor(sql, a.customer.id)).cookie), params: {}, context: {} })) as Awaited<ReturnType<typeof kyc.loader>>;
      expect(own.document!.files.front?.id).toBe(front.id);
    }
  });
});

describe('inside login-as', () => {
  const args = (request: Request, params: Record<string, string> = {}) => ({ request, params, context: {} });
  const audits = (customerId: number) =>
    sql`SELECT actor_id, action, after FROM audit_events WHERE target_kind = 'user' AND target_id = ${String(customerId)} ORDER BY id`;

  test('a withdrawal is refused with a message and changes nothing; the customer still withdraws', async () => {
    const a = await loginAs(1);
    const wallet = await walletFor(sql, a.customer.id, { credit: '1000' });
    const page = (await withdraws.loader(args(get('/withdraws', a.cookie)))) as Awaited<ReturnType<typeof withdraws.loader>>;
    expect(page).toMatchObject({ form: null, refusal: 'Withdrawals must be requested by the customer: sign in as yourself' });
    const body = {
      balance_id: String(wallet), amount: '100', bank_name: 'Chase', account_name: 'Mallory', account_number: '12345678',
      swift_code: 'chasus33', bank_country: 'United States', clientRef: unique('ref-'),
    };
    const r = await answerOf(withdraws.action(args(post('/withdraws', body, { cookie: a.cookie }))));
    expect(r.status).toBe(403);
    expect(r.body.toast).toBe('Withdrawals must be requested by the customer: sign in as yourself');
    expect((await sql`SELECT count(*)::int AS n FROM withdrawals WHERE user_id = ${a.customer.id}`)[0].n).toBe(0);
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${wallet}`)[0].b).toBe('1000.00000000');
    expect((await audits(a.customer.id)).filter((e) => e.action !== 'auth.login_as')).toEqual([]);

    const own = await sessionFor(sql, a.customer.id);
    const mine = (await withdraws.loader(args(get('/withdraws', own.cookie)))) as Awaited<ReturnType<typeof withdraws.loader>>;
    expect(mine.refusal).toBeNull();
    expect(mine.form).not.toBeNull();
    expect((await answerOf(withdraws.action(args(post('/withdraws', { ...body, clientRef: unique('ref-') }, { cookie: own.cookie }))))).status).toBe(200);
  });

  test('a PayPal deposit (its payer is where withdrawals are paid back to) is refused and writes nothing', async () => {
    const a = await loginAs(2);
    const wallet = await walletFor(sql, a.customer.id);
    const r = await answerOf(deposits.action(args(post('/deposits', { balance_id: String(wallet), gateway: 'paypal', amount: '50' }, { cookie: a.cookie }))));
    expect(r.status).toBe(403);
    expect(r.body.toast).toBe('Withdrawals are paid back to the PayPal account of a PayPal deposit, so the customer must make it: sign in as yourself');
    expect((await sql`SELECT count(*)::int AS n FROM deposits WHERE user_id = ${a.customer.id}`)[0].n).toBe(0);
  });

  test('profile, plan, password, KYC documents, a deposit request, a favourite, an order, the wallet switch and reading notifications are audited with the staff member as the actor', async () => {
    await ensureGateways(sql);
    const a = await loginAs(2);
    const wallet = await walletFor(sql, a.customer.id);
    const second = await walletFor(sql, a.customer.id, { currency: 'EUR' });
    const ok = (r: { status: number }, what: string) => expect(r.status, what).toBeLessThan(400);

    ok(await answerOf(profile.action(args(post('/profile', {
      fullName: 'Changed By Staff', phone: '+1 212 555 0100', birthDate: '1990-05-17', country: 'Germany', city: 'Berlin', address: 'Torstraße 1', postalCode: '10119',
    }, { cookie: a.cookie })))), 'profile');
    const [plan] = await sql`INSERT INTO pricing_plans (name, price) VALUES (${unique('Plan ')}, 0) RETURNING id`;
    ok(await answerOf(pricing.action(args(post('/pricing', { intent: 'subscribe', planId: String(plan.id) }, { cookie: a.cookie })))), 'plan');
    ok(await answerOf(security.action(args(post('/security', { intent: 'password', currentPassword: PASSWORD, newPassword: 'Changed-pass-9' }, { cookie: a.cookie })))), 'password');
    const kycParts: Part[] = [{ name: 'type', value: 'passport' }, { name: 'front', file: png(6, 4), filename: 'front.png', type: 'image/png' }];
    ok(await answerOf(kyc.action(args(uploadRequest(kycParts, { cookie: a.cookie, path: '/kyc' })))), 'kyc');
    const bankParts: Part[] = [
      ...Object.entries({ bank_name: 'Chase', account_name: 'x', account_number: '12345678', clientRef: unique('ref-') }).map(([name, value]) => ({ name, value })),
      { name: 'proof', file: png(6, 4), filename: 'receipt.png', type: 'image/png' },
    ];
    ok(await answerOf(bank.action(args(uploadRequest(bankParts, { cookie: a.cookie, path: `/deposits/bank/${wallet}?amount=250` }), { id: String(wallet) }))), 'deposit');
    const [inst] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, bids, asks)
                             VALUES ('LAS_USD', 'LAS', 'USD', 'forex', 100, 1.1, 1.1002)
                             ON CONFLICT (name) DO UPDATE SET base = 'LAS' RETURNING id`;
    ok(await answerOf(dashboard.action(args(post('/dashboard', { intent: 'favorite-add', id: String(inst.id) }, { cookie: a.cookie })))), 'favourite');
    ok(await answerOf(dashboard.action(args(post('/dashboard', { intent: 'place', type: 'buy', instrument: 'LAS_USD', amount: '1000', profit: '', loss: '' }, { cookie: a.cookie })))), 'order');
    ok(await answerOf(switchWallet.action(args(post('/dashboard/switch-wallet', { balanceId: String(second) }, { cookie: a.cookie })))), 'switch');
    await sql`INSERT INTO notifications (user_id, title) VALUES (${a.customer.id}, 'Deposit approved')`;
    ok(await answerOf(notifications.action(args(post('/notifications', { intent: 'readAll' }, { cookie: a.cookie })))), 'notifications');

    const rows = (await audits(a.customer.id)).filter((e) => e.action !== 'auth.login_as');
    expect(rows.map((e) => e.action)).toEqual([
      'profile.update', 'plan.subscribe', 'security.password_change', 'kyc.submit', 'deposit.request', 'dashboard.favorite-add', 'dashboard.place',
      'wallet.switch', 'notifications.read_all',
    ]);
    for (const e of rows) expect(Number(e.actor_id), e.action).toBe(a.staff.id);
    expect(rows.find((e) => e.action === 'deposit.request')!.after).toMatchObject({ gateway: 'bank', amount: '250.00', currency: 'USD' });

    // the customer's own changes are not login-as changes: no row with a staff actor
    const own = await sessionFor(sql, a.customer.id);
    ok(await answerOf(switchWallet.action(args(post('/dashboard/switch-wallet', { balanceId: String(wallet) }, { cookie: own.cookie })))), 'own switch');
    expect((await audits(a.customer.id)).filter((e) => e.action !== 'auth.login_as')).toHaveLength(rows.length);
  });
});
