// The Edit Customer page (/admin/customers/edit/:id) against PostgreSQL: which customer each
// role opens (anything else 404), what the loader sends each role (masked contact details never
// leave the server for a retention agent), the profile save (validation, unique email, audit)
// and the balance adjustment (ledger entry, audit with before and after, below-zero refusal,
// double submit, refused roles).
import { afterAll, describe, expect, test } from 'vitest';
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import * as editRoute from '~/routes/_staff.admin.customers.edit.$id.tsx';
import { editAccess } from '~/modules/customers/edit.server.ts';
import { adjustRef, ADJUST_REF_KIND, BELOW_ZERO } from '~/modules/customers/balance.server.ts';
import { maskEmail, maskPhone } from '~/shared/mask.ts';
import { createUser, get, post, sessionFor, settle, testSql, uniqueIp, walletFor, type TestUser } from '../helpers.ts';

const sql = testSql();
afterAll(() => sql.end());

const load = (request: Request, id: string) =>
  settle(Promise.resolve().then(() => editRoute.loader({ request, params: { id }, context: {} } as LoaderFunctionArgs)));
const act = (request: Request, id: string) =>
  settle(Promise.resolve().then(() => editRoute.action({ request, params: { id }, context: { clientIp: uniqueIp() } } as ActionFunctionArgs)));

function status(r: unknown): number | string {
  if (r instanceof Response) return r.status >= 300 && r.status < 400 ? `redirect:${r.headers.get('location')}` : r.status;
  const d = r as { init?: { status?: number } | null };
  return d?.init?.status ?? 200;
}
/** The body of a loader's plain answer or of an action's data(). */
function body<T = Record<string, unknown>>(r: unknown): T {
  const d = r as { data?: unknown; type?: string };
  return (d && d.type === 'DataWithResponseInit' ? d.data : r) as T;
}

type Loaded = Awaited<ReturnType<typeof editRoute.loader>>;

async function customerWithProfile(email?: string): Promise<TestUser> {
  const c = await createUser(sql, email ? { email } : {});
  await sql`INSERT INTO profiles (user_id, phone, country, city, address, postal_code)
            VALUES (${c.id}, '+44 7700 900123', 'United Kingdom', 'London', '1 Test Street', 'N1 1AA')`;
  return c;
}

async function staff(roleId: number) {
  const u = await createUser(sql, { roleId });
  return { user: u, cookie: (await sessionFor(sql, u.id)).cookie };
}

const profileForm = (over: Record<string, string> = {}) => ({
  intent: 'profile', fullName: 'Edited Name', email: '', phone: '+1 212 555 0100', birthDate: '1990-05-04', country: 'France',
  city: 'Paris', postalCode: '75001', address: '2 Rue Test', managerId: '-2', pricingTableId: '-2', isEmailVerified: 'on', isActive: 'on',
  ...over,
});

// ------------------------------------------------------------------ who opens what

describe('role scoping', () => {
  test('admins and managers open any customer; staff records, deleted and malformed ids are 404', async () => {
    const admin = await staff(1);
    const manager = await staff(2);
    const c = await customerWithProfile();
    for (const s of [admin, manager]) {
      const r = await load(get(`/admin/customers/edit/${c.id}`, s.cookie), String(c.id));
      expect(status(r)).toBe(200);
      expect((r as Loaded).customer.email).toBe(c.email);
    }
    for (const bad of ['abc', '0', '01', '-1', '1e3', '1.5', '99999999999999999999', String(admin.user.id), String(manager.user.id), '999999999999']) {
      expect(status(await load(get(`/admin/customers/edit/${encodeURIComponent(bad)}`, admin.cookie), bad)), bad).toBe(404);
    }
    // the actions are scoped the same way
    expect(status(await act(post(`/admin/customers/edit/${admin.user.id}`, profileForm({ email: 'x@test.broker' }), { cookie: admin.cookie }), String(admin.user.id)))).toBe(404);
  });

  test('a sales agent opens only the customers whose lead is theirs (else 404), a retention agent theirs', async () => {
    const sales = await staff(5);
    const ret = await staff(6);
    const mine = await customerWithProfile();
    const other = await customerWithProfile();
    await sql`INSERT INTO leads (email, user_id, agent_id, ret_id) VALUES (${mine.email}, ${mine.id}, ${sales.user.id}, ${ret.user.id})`;
    await sql`INSERT INTO leads (email, user_id) VALUES (${other.email}, ${other.id})`;
    const w = await walletFor(sql, other.id, { credit: '10' });
    for (const s of [sales, ret]) {
      expect(status(await load(get(`/admin/customers/edit/${mine.id}`, s.cookie), String(mine.id)))).toBe(200);
      expect(status(await load(get(`/admin/customers/edit/${other.id}`, s.cookie), String(other.id)))).toBe(404);
      const r = await act(post(`/admin/customers/edit/${other.id}`, { intent: 'balance', balanceId: String(w), type: 'add', amount: '5', reason: 'x', clientRef: crypto.randomUUID() }, { cookie: s.cookie }), String(other.id));
      expect(status(r)).toBe(404);
    }
  });

  test('a sales agent may not add or subtract balance, even on their own customer', async () => {
    const sales = await staff(5);
    const c = await customerWithProfile();
    await sql`INSERT INTO leads (email, user_id, agent_id) VALUES (${c.email}, ${c.id}, ${sales.user.id})`;
    const w = await walletFor(sql, c.id, { credit: '10' });
    const r = await act(post(`/admin/customers/edit/${c.id}`, { intent: 'balance', balanceId: String(w), type: 'add', amount: '5', reason: 'x', clientRef: crypto.randomUUID() }, { cookie: sales.cookie }), String(c.id));
    expect(status(r)).toBe(403);
    const [bal] = await sql`SELECT balance::text AS balance FROM balances WHERE id = ${w}`;
    expect(bal.balance).toBe('10.00000000');
  });

  test('an unknown tab opens the profile; bad list parameters are a message, never a 500', async () => {
    const admin = await staff(1);
    const c = await customerWithProfile();
    const r = await load(get(`/admin/customers/edit/${c.id}?tab=bogus`, admin.cookie), String(c.id));
    expect((r as Loaded).tab).toBe('profile');
    for (const q of ['page=abc', 'limit=-3', 'page=999999999999', 'dir=sideways']) {
      const x = await load(get(`/admin/customers/edit/${c.id}?tab=trades&${q}`, admin.cookie), String(c.id));
      expect([200, 400], q).toContain(status(x));
    }
  });

  test('customers and affiliates are refused the page', async () => {
    const c = await customerWithProfile();
    for (const role of [3, 4]) {
      const s = await staff(role);
      expect(status(await load(get(`/admin/customers/edit/${c.id}`, s.cookie), String(c.id))), `role ${role}`).toBe(403);
    }
  });

  test('what each role may do (docs/specs.md#customer-records)', () => {
    expect(editAccess(1, false)).toEqual({ canEdit: true, canEditAccount: true, canAdjust: true, canLoginAs: true, masked: false, history: true });
    expect(editAccess(2, false)).toEqual({ canEdit: true, canEditAccount: true, canAdjust: true, canLoginAs: true, masked: false, history: false });
    expect(editAccess(5, false).masked).toBe(true);
    expect(editAccess(5, true).masked).toBe(false);
    expect(editAccess(5, true)).toMatchObject({ canEdit: true, canEditAccount: false, canAdjust: false });
    expect(editAccess(6, true)).toEqual({ canEdit: false, canEditAccount: false, canAdjust: false, canLoginAs: true, masked: true, history: false });
  });
});

// ------------------------------------------------------------------ role 5: profile fields only

describe('sales agent', () => {
  const accountOf = async (id: number) => (await sql`
    SELECT u.full_name, u.manager_id, u.pricing_plan_id, u.is_email_verified, u.is_active, u.password_hash, p.city
      FROM users u JOIN profiles p ON p.user_id = u.id WHERE u.id = ${id}`)[0];

  test('saves the profile fields; password, manager, plan and the verified / active flags keep their stored values', async () => {
    const sales = await staff(5);
    const boss = await createUser(sql, { roleId: 2 });
    const [plan] = await sql`INSERT INTO pricing_plans (name) VALUES (${'Plan ' + crypto.randomUUID()}) RETURNING id`;
    const c = await customerWithProfile();
    await sql`UPDATE users SET manager_id = ${boss.id}, pricing_plan_id = ${plan.id} WHERE id = ${c.id}`;
    await sql`INSERT INTO leads (email, user_id, agent_id) VALUES (${c.email}, ${c.id}, ${sales.user.id})`;
    const before = await accountOf(c.id);
    const { managerId: _m, pricingTableId: _p, isEmailVerified: _v, isActive: _a, ...profileOnly } = profileForm({ email: c.email });
    // the form a sales agent is shown: no account field
    const r = await act(post(`/admin/customers/edit/${c.id}`, profileOnly, { cookie: sales.cookie }), String(c.id));
    expect(status(r)).toBe(200);
    expect(await accountOf(c.id)).toEqual({ ...before, full_name: 'Edited Name', city: 'Paris' });
    const [a] = await sql`SELECT actor_id, after FROM audit_events WHERE action = 'customer.update' AND target_id = ${String(c.id)}`;
    expect(Number(a.actor_id)).toBe(sales.user.id);
    expect(Object.keys(a.after)).not.toEqual(expect.arrayContaining(['manager_id']));
  });

  test('a posted password, manager, plan or flag is refused with a message and changes nothing', async () => {
    const sales = await staff(5);
    const c = await customerWithProfile();
    await sql`INSERT INTO leads (email, user_id, agent_id) VALUES (${c.email}, ${c.id}, ${sales.user.id})`;
    const before = await accountOf(c.id);
    const boss = await createUser(sql, { roleId: 2 });
    const { managerId: _m, pricingTableId: _p, isEmailVerified: _v, isActive: _a, ...profileOnly } = profileForm({ email: c.email });
    const attempts: Record<string, string>[] = [{ password: 'Agent-set-123' }, { managerId: String(boss.id) }, { pricingTableId: '-2' }, { isEmailVerified: 'on' }, { isActive: 'on' }];
    for (const over of attempts) {
      const r = await act(post(`/admin/customers/edit/${c.id}`, { ...profileOnly, ...over }, { cookie: sales.cookie }), String(c.id));
      expect(status(r), JSON.stringify(over)).toBe(403);
      expect(body<{ toast: string }>(r).toast).toBe('Only admins and managers may change the password, manager, plan, verified or active status');
      expect(await accountOf(c.id)).toEqual(before);
    }
  });

  test('the page does not offer them', async () => {
    const sales = await staff(5);
    const c = await customerWithProfile();
    await sql`INSERT INTO leads (email, user_id, agent_id) VALUES (${c.email}, ${c.id}, ${sales.user.id})`;
    const r = (await load(get(`/admin/customers/edit/${c.id}`, sales.cookie), String(c.id))) as Loaded;
    expect(r.access).toMatchObject({ canEdit: true, canEditAccount: false });
  });
});

// ------------------------------------------------------------------ role 6: masked on the server, read-only

describe('retention agent', () => {
  test('the loader never sends the email or the phone; profile and balance posts are refused and change nothing', async () => {
    const ret = await staff(6);
    const c = await customerWithProfile();
    await sql`INSERT INTO leads (email, user_id, ret_id) VALUES (${c.email}, ${c.id}, ${ret.user.id})`;
    const w = await walletFor(sql, c.id, { credit: '50' });
    const r = await load(get(`/admin/customers/edit/${c.id}`, ret.cookie), String(c.id));
    const json = JSON.stringify(r);
    expect(json).not.toContain(c.email);
    expect(json).not.toContain('7700 900123');
    expect(json).not.toContain('7700900123');
    const data = r as Loaded;
    expect(data.customer.email).toBe(maskEmail(c.email));
    expect(data.customer.phone).toBe('******23');
    expect(data.access).toMatchObject({ canEdit: false, canAdjust: false, masked: true });

    const p = await act(post(`/admin/customers/edit/${c.id}`, profileForm({ email: 'stolen@test.broker' }), { cookie: ret.cookie }), String(c.id));
    expect(status(p)).toBe(403);
    const [u] = await sql`SELECT u.email, u.full_name, p.phone FROM users u JOIN profiles p ON p.user_id = u.id WHERE u.id = ${c.id}`;
    expect(u).toMatchObject({ email: c.email, phone: '+44 7700 900123' });
    expect(u.full_name).not.toBe('Edited Name');

    const b = await act(post(`/admin/customers/edit/${c.id}`, { intent: 'balance', balanceId: String(w), type: 'add', amount: '100', reason: 'gift', clientRef: crypto.randomUUID() }, { cookie: ret.cookie }), String(c.id));
    expect(status(b)).toBe(403);
    const [bal] = await sql`SELECT balance::text AS balance FROM balances WHERE id = ${w}`;
    expect(bal.balance).toBe('50.00000000');
    const [n] = await sql`SELECT count(*)::int AS n FROM ledger_entries WHERE balance_id = ${w} AND ref_kind = ${ADJUST_REF_KIND}`;
    expect(n.n).toBe(0);
  });

  test('the tab lists do not repeat the customer\'s email', async () => {
    const ret = await staff(6);
    const c = await customerWithProfile();
    await sql`INSERT INTO leads (email, user_id, ret_id) VALUES (${c.email}, ${c.id}, ${ret.user.id})`;
    for (const tab of ['trades', 'deposits', 'withdraws', 'tracking']) {
      const r = await load(get(`/admin/customers/edit/${c.id}?tab=${tab}`, ret.cookie), String(c.id));
      expect(status(r)).toBe(200);
      expect((r as Loaded).tab).toBe(tab);
      expect(JSON.stringify(r)).not.toContain(c.email);
    }
  });
});

// ------------------------------------------------------------------ the profile form

describe('profile save', () => {
  test('a manager saves every field: users and profiles change, one audit row with before and after', async () => {
    const manager = await staff(2);
    const boss = await createUser(sql, { roleId: 2 });
    const [plan] = await sql`INSERT INTO pricing_plans (name) VALUES (${'Plan ' + crypto.randomUUID()}) RETURNING id`;
    const c = await customerWithProfile();
    const email = `edited-${crypto.randomUUID().slice(0, 8)}@test.broker`;
    const r = await act(post(`/admin/customers/edit/${c.id}`, profileForm({
      email: email.toUpperCase(), password: 'New-pass-123', managerId: String(boss.id), pricingTableId: String(plan.id), isEmailVerified: '',
    }), { cookie: manager.cookie }), String(c.id));
    expect(status(r)).toBe(200);
    expect(body<{ ok: boolean; toast: string }>(r)).toMatchObject({ ok: true, toast: 'User updated successfully' });
    const [u] = await sql`SELECT u.email, u.full_name, u.manager_id, u.pricing_plan_id, u.is_email_verified, u.is_active, u.password_hash,
                                 p.phone, p.country, p.city, p.postal_code, p.address, to_char(p.birth_date, 'YYYY-MM-DD') AS birth_date
                            FROM users u JOIN profiles p ON p.user_id = u.id WHERE u.id = ${c.id}`;
    expect(u).toMatchObject({
      email, full_name: 'Edited Name', manager_id: boss.id, pricing_plan_id: Number(plan.id), is_email_verified: false, is_active: true,
      phone: '+1 212 555 0100', country: 'France', city: 'Paris', postal_code: '75001', address: '2 Rue Test', birth_date: '1990-05-04',
    });
    const [a] = await sql`SELECT actor_id, before, after FROM audit_events WHERE action = 'customer.update' AND target_id = ${String(c.id)}`;
    expect(Number(a.actor_id)).toBe(manager.user.id);
    expect(a.before).toMatchObject({ email: c.email, country: 'United Kingdom', password: '(unchanged)' });
    expect(a.after).toMatchObject({ email, country: 'France', password: '(changed)' });
    expect(JSON.stringify(a)).not.toContain(u.password_hash);
  });

  test('bad input is refused under its field and changes nothing', async () => {
    const admin = await staff(1);
    const c = await customerWithProfile();
    const taken = await createUser(sql);
    const cases: [Record<string, string>, string, string][] = [
      [{ email: 'not-an-email' }, 'email', 'Invalid email'],
      [{ email: taken.email }, 'email', 'This email is already registered.'],
      [{ password: 'short' }, 'password', 'Password must be at least 8 characters'],
      [{ birthDate: '2023-02-30' }, 'birthDate', 'Invalid date'],
      [{ birthDate: new Date().toISOString().slice(0, 10) }, 'birthDate', 'You must be at least 18 years old'],
      [{ fullName: '  ' }, 'fullName', 'Full name is required'],
      [{ country: 'Atlantis' }, 'country', 'Select a country from the list'],
      [{ phone: 'call me maybe' }, 'phone', 'Invalid phone number for this country'],
      [{ phone: '12' }, 'phone', 'Invalid phone number for this country'],
      [{ managerId: String(admin.user.id) }, 'managerId', 'Select a manager from the list'],
      [{ managerId: 'abc' }, 'managerId', 'Select a manager from the list'],
      [{ pricingTableId: '999999999' }, 'pricingTableId', 'Select a plan from the list'],
    ];
    for (const [over, field, message] of cases) {
      const r = await act(post(`/admin/customers/edit/${c.id}`, profileForm({ email: c.email, ...over }), { cookie: admin.cookie }), String(c.id));
      expect(status(r), JSON.stringify(over)).toBe(400);
      const reply = body<{ ok: boolean; result: { error: Record<string, string[]> } }>(r);
      expect(reply.ok).toBe(false);
      expect(reply.result.error[field], JSON.stringify(over)).toContain(message);
    }
    const [u] = await sql`SELECT u.email, u.full_name, p.country FROM users u JOIN profiles p ON p.user_id = u.id WHERE u.id = ${c.id}`;
    expect(u).toMatchObject({ email: c.email, country: 'United Kingdom' });
    const [n] = await sql`SELECT count(*)::int AS n FROM audit_events WHERE action = 'customer.update' AND target_id = ${String(c.id)}`;
    expect(n.n).toBe(0);
  });

  test('a new password ends the customer\'s sessions; an unknown intent is a message, not a 500', async () => {
    const admin = await staff(1);
    const c = await customerWithProfile();
    const cs = await sessionFor(sql, c.id);
    const r = await act(post(`/admin/customers/edit/${c.id}`, profileForm({ email: c.email, password: 'Another-pass-1' }), { cookie: admin.cookie }), String(c.id));
    expect(status(r)).toBe(200);
    const [s] = await sql`SELECT revoked_at FROM sessions WHERE id = ${cs.id}`;
    expect(s.revoked_at).not.toBeNull();
    const x = await act(post(`/admin/customers/edit/${c.id}`, { intent: 'nope' }, { cookie: admin.cookie }), String(c.id));
    expect(status(x)).toBe(400);
  });
});

// ------------------------------------------------------------------ balance add / subtract

describe('balance adjustment', () => {
  const adjust = (cookie: string, customerId: number, f: Record<string, string>) =>
    act(post(`/admin/customers/edit/${customerId}?tab=profile`, { intent: 'balance', reason: 'Goodwill credit', clientRef: crypto.randomUUID(), ...f }, { cookie }), String(customerId));

  test('add and subtract post ledger entries of kind adjustment, audited with before and after; the page reloads with the toast', async () => {
    const admin = await staff(1);
    const c = await customerWithProfile();
    const w = await walletFor(sql, c.id, { credit: '10.5' });
    const ref = crypto.randomUUID();
    const r = await adjust(admin.cookie, c.id, { balanceId: String(w), type: 'add', amount: '100.12345678', clientRef: ref });
    expect(status(r)).toBe(`redirect:/admin/customers/edit/${c.id}?tab=profile`);
    expect((r as Response).headers.get('set-cookie')).toContain('toast=');
    const [e] = await sql`SELECT kind, amount::text AS amount, balance_after::text AS after, ref_kind, ref_id, actor_id, memo FROM ledger_entries
                           WHERE balance_id = ${w} AND ref_kind = ${ADJUST_REF_KIND}`;
    expect(e).toMatchObject({ kind: 'adjustment', amount: '100.12345678', after: '110.62345678', ref_id: adjustRef(w, ref), memo: 'Goodwill credit' });
    expect(Number(e.actor_id)).toBe(admin.user.id);
    const [a] = await sql`SELECT before, after FROM audit_events WHERE action = 'balance.adjust' AND target_id = ${String(c.id)}`;
    expect(a.before).toMatchObject({ balanceId: w, balance: '10.50000000' });
    expect(a.after).toMatchObject({ balanceId: w, balance: '110.62345678', type: 'add', amount: '100.12345678', reason: 'Goodwill credit' });

    const s = await adjust(admin.cookie, c.id, { balanceId: String(w), type: 'subtract', amount: '0.62345678' });
    expect(status(s)).toMatch(/^redirect:/);
    const [b] = await sql`SELECT balance::text AS balance FROM balances WHERE id = ${w}`;
    expect(b.balance).toBe('110.00000000');
  });

  test('the amount as the staff member\'s language writes it (docs/specs.md#number-input): German \'1.000,12345678\' is exact; \'12.5\' is refused there', async () => {
    await sql`INSERT INTO languages (code, name) VALUES ('en', 'English'), ('de', 'Deutsch') ON CONFLICT (code) DO NOTHING`;
    const admin = await staff(1);
    const c = await customerWithProfile();
    const w = await walletFor(sql, c.id);
    const de = `${admin.cookie}; lang=de`;
    expect(status(await adjust(de, c.id, { balanceId: String(w), type: 'add', amount: '1.000,12345678' }))).toMatch(/^redirect:/);
    const refused = await adjust(de, c.id, { balanceId: String(w), type: 'add', amount: '12.5' });
    expect(status(refused)).toBe(400);
    expect(body<{ result: { error: Record<string, string[]> } }>(refused).result.error.amount).toEqual(['Amount must be a number like 12.5']);
    const [b] = await sql`SELECT balance::text AS balance FROM balances WHERE id = ${w}`;
    expect(b.balance).toBe('1000.12345678');
  });

  test('below zero is refused with a clear message and nothing changes', async () => {
    const manager = await staff(2);
    const c = await customerWithProfile();
    const w = await walletFor(sql, c.id, { credit: '20' });
    const r = await adjust(manager.cookie, c.id, { balanceId: String(w), type: 'subtract', amount: '20.01' });
    expect(status(r)).toBe(400);
    expect(body<{ toast: string; result: { error: Record<string, string[]> } }>(r)).toMatchObject({ toast: BELOW_ZERO, result: { error: { amount: [BELOW_ZERO] } } });
    const [b] = await sql`SELECT balance::text AS balance FROM balances WHERE id = ${w}`;
    expect(b.balance).toBe('20.00000000');
    const [n] = await sql`SELECT (SELECT count(*) FROM ledger_entries WHERE balance_id = ${w} AND ref_kind = ${ADJUST_REF_KIND})::int AS l,
                                 (SELECT count(*) FROM audit_events WHERE action = 'balance.adjust' AND target_id = ${String(c.id)})::int AS a`;
    expect(n).toEqual({ l: 0, a: 0 });
    // exactly to zero is allowed
    expect(status(await adjust(manager.cookie, c.id, { balanceId: String(w), type: 'subtract', amount: '20' }))).toMatch(/^redirect:/);
  });

  test('a double submit (same form id) posts one entry and one audit row', async () => {
    const admin = await staff(1);
    const c = await customerWithProfile();
    const w = await walletFor(sql, c.id);
    const clientRef = crypto.randomUUID();
    const results = await Promise.all([1, 2, 3].map(() => adjust(admin.cookie, c.id, { balanceId: String(w), type: 'add', amount: '100', clientRef })));
    for (const r of results) expect(status(r)).toMatch(/^redirect:/);
    const [b] = await sql`SELECT balance::text AS balance FROM balances WHERE id = ${w}`;
    expect(b.balance).toBe('100.00000000');
    const [n] = await sql`SELECT (SELECT count(*) FROM ledger_entries WHERE balance_id = ${w} AND ref_kind = ${ADJUST_REF_KIND})::int AS l,
                                 (SELECT count(*) FROM audit_events WHERE action = 'balance.adjust' AND target_id = ${String(c.id)})::int AS a`;
    expect(n).toEqual({ l: 1, a: 1 });
    // the same form id with another amount is refused, not posted
    const other = await adjust(admin.cookie, c.id, { balanceId: String(w), type: 'add', amount: '5', clientRef });
    expect(status(other)).toBe(409);
  });

  test('amounts outside the column, missing reasons and other customers\' wallets are refused', async () => {
    const admin = await staff(1);
    const c = await customerWithProfile();
    const stranger = await customerWithProfile();
    const w = await walletFor(sql, c.id, { credit: '1' });
    const theirs = await walletFor(sql, stranger.id, { credit: '1' });
    const cases: [Record<string, string>, string, string][] = [
      [{ amount: '' }, 'amount', 'Amount is required'],
      [{ amount: '0' }, 'amount', 'Amount must be greater than 0'],
      [{ amount: '-5' }, 'amount', 'Amount must be greater than 0'],
      [{ amount: '1e3' }, 'amount', 'Amount must be a number like 12.5'],
      [{ amount: '1,5' }, 'amount', 'Amount must be a number like 12.5'],
      [{ amount: '0.123456789' }, 'amount', 'Amount allows at most 8 decimal places'],
      [{ amount: '12345678901234567' }, 'amount', 'Amount is too large'],
      [{ amount: '5', reason: ' ' }, 'reason', 'Reason is required'],
      [{ amount: '5', reason: 'x'.repeat(501) }, 'reason', 'Reason allows at most 500 characters'],
    ];
    for (const [over, field, message] of cases) {
      const r = await adjust(admin.cookie, c.id, { balanceId: String(w), type: 'add', ...over });
      expect(status(r), JSON.stringify(over)).toBe(400);
      expect(body<{ result: { error: Record<string, string[]> } }>(r).result.error[field], JSON.stringify(over)).toContain(message);
    }
    const bad = await adjust(admin.cookie, c.id, { balanceId: String(theirs), type: 'add', amount: '5' });
    expect(status(bad)).toBe(404);
    expect(body<{ toast: string }>(bad).toast).toBe('Wallet not found');
    const nope = await adjust(admin.cookie, c.id, { balanceId: String(w), type: 'multiply', amount: '5' });
    expect(status(nope)).toBe(400);
    const [b] = await sql`SELECT (SELECT balance::text FROM balances WHERE id = ${w}) AS mine, (SELECT balance::text FROM balances WHERE id = ${theirs}) AS theirs`;
    expect(b).toEqual({ mine: '1.00000000', theirs: '1.00000000' });
  });
});

describe('masking helpers (docs/specs.md#agent-masking)', () => {
  test('email keeps 2 + 2 local characters; 4 or fewer unchanged; phone ****** and the last 2 digits', () => {
    expect(maskEmail('johnsmith@example.com')).toBe('jo****th@example.com');
    expect(maskEmail('abcd@example.com')).toBe('abcd@example.com');
    expect(maskEmail('abcde@example.com')).toBe('ab****de@example.com');
    expect(maskPhone('+44 7700 900123')).toBe('******23');
  });
});

describe('login as (docs/specs.md#login-as)', () => {
  test('a retention agent signs in as their customer; the customer\'s pages then show the contact details masked', async () => {
    const { action: loginAs } = await import('~/routes/admin.customers.login-as.$id.tsx');
    const { loader: clientLayout } = await import('~/routes/_client.tsx');
    const { loader: profileLoader } = await import('~/routes/_client.profile.tsx');
    const { SESSION_COOKIE } = await import('~/shared/cookies.server.ts');
    const ret = await staff(6);
    const sales = await staff(5);
    const c = await customerWithProfile();
    await sql`INSERT INTO leads (email, user_id, agent_id, ret_id) VALUES (${c.email}, ${c.id}, ${sales.user.id}, ${ret.user.id})`;
    const r = await settle(Promise.resolve().then(() => loginAs({ request: post(`/admin/customers/login-as/${c.id}`, {}, { cookie: ret.cookie }), params: { id: String(c.id) }, context: {} } as ActionFunctionArgs)));
    expect(status(r)).toBe('redirect:/dashboard');
    const cookie = `${SESSION_COOKIE}=${new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec((r as Response).headers.get('set-cookie')!)![1]}`;
    const shell = await settle(Promise.resolve().then(() => clientLayout({ request: get('/profile', cookie), params: {}, context: {} } as LoaderFunctionArgs))) as { user: { email: string }; impersonating: boolean };
    expect(shell.impersonating).toBe(true);
    expect(shell.user.email).toBe(maskEmail(c.email));
    const profile = await settle(Promise.resolve().then(() => profileLoader({ request: get('/profile', cookie), params: {}, context: {} } as LoaderFunctionArgs)));
    expect(JSON.stringify(profile)).not.toContain(c.email);
    expect(JSON.stringify(profile)).not.toContain('7700 900123');
    // a sales agent has no Login as
    const s = await settle(Promise.resolve().then(() => loginAs({ request: post(`/admin/customers/login-as/${c.id}`, {}, { cookie: sales.cookie }), params: { id: String(c.id) }, context: {} } as ActionFunctionArgs)));
    expect(status(s)).toBe(403);
    // no visit is recorded while a staff member is signed in as the customer
    await new Promise((res) => setTimeout(res, 200));
    const [n] = await sql`SELECT count(*)::int AS n FROM tracking_events WHERE user_id = ${c.id}`;
    expect(n.n).toBe(0);
  });
});
