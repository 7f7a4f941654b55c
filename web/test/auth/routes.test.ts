// The auth routes called the way the browser calls them: cookies, Origin check, redirects,
// login-as and back to admin (audited), sign-out, wallet switch, missing translation keys.
import { afterAll, describe, expect, test } from 'vitest';
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import * as signInRoute from '~/routes/_auth._index.tsx';
import * as signUpRoute from '~/routes/_auth.signup.tsx';
import * as logoutRoute from '~/routes/auth.logout.tsx';
import * as loginAsRoute from '~/routes/admin.customers.login-as.$id.tsx';
import * as backRoute from '~/routes/authManager.back-to-admin.tsx';
import * as walletRoute from '~/routes/dashboard.switch-wallet.tsx';
import * as translationsRoute from '~/routes/translations.$lng.tsx';
import * as verifyRoute from '~/routes/verify-email.$token.tsx';
import * as staffLayout from '~/routes/_staff.tsx';
import * as clientLayout from '~/routes/_client.tsx';
import * as userRoute from '~/routes/auth.user.tsx';
import { findSession } from '~/modules/auth/session.server.ts';
import { SESSION_COOKIE } from '~/shared/cookies.server.ts';
import { BASE, createUser, get, PASSWORD, post, sessionFor, setCookieToken, settle, testSql, uniqueEmail, uniqueIp } from '../helpers.ts';

const sql = testSql();
afterAll(() => sql.end());

const act = (fn: (a: ActionFunctionArgs) => unknown, request: Request, params: Record<string, string> = {}, ip = uniqueIp()) =>
  settle(Promise.resolve().then(() => fn({ request, params, context: { clientIp: ip } }))) as Promise<Response | { type: string; data: any; init: ResponseInit | null }>;
const load = (fn: (a: LoaderFunctionArgs) => unknown, request: Request, params: Record<string, string> = {}) =>
  settle(Promise.resolve().then(() => fn({ request, params, context: {} })));

function status(r: unknown): number {
  if (r instanceof Response) return r.status;
  const d = r as { init?: { status?: number } | null };
  return d?.init?.status ?? 200;
}

describe('sign-in action', () => {
  test('a customer goes to /dashboard with an HttpOnly SameSite=Lax cookie; staff go to their role home', async () => {
    const c = await createUser(sql, { roleId: 3 });
    const r = (await act(signInRoute.action, post('/', { email: c.email, password: PASSWORD }))) as Response;
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('/dashboard');
    const cookie = r.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Max-Age/); // a browser-session cookie without remember
    const homes: Record<number, string> = { 1: '/admin', 2: '/admin/trades/all', 4: '/affiliate', 5: '/admin/crm/sales/all', 6: '/admin/crm/retention' };
    for (const [role, home] of Object.entries(homes)) {
      const s = await createUser(sql, { roleId: Number(role) });
      const res = (await act(signInRoute.action, post('/', { email: s.email, password: PASSWORD, remember: 'on' }))) as Response;
      expect(res.headers.get('location')).toBe(home);
      expect(res.headers.get('set-cookie')).toMatch(/Max-Age=2592000/);
    }
  });

  test('bad credentials answer 401 with "Invalid Credentials"; a missing field answers 400', async () => {
    const r = (await act(signInRoute.action, post('/', { email: uniqueEmail('x'), password: 'whatever' }))) as { data: any; init: ResponseInit };
    expect(status(r)).toBe(401);
    expect(r.data).toMatchObject({ ok: false, toast: 'Invalid Credentials' });
    const bad = (await act(signInRoute.action, post('/', { email: 'not-an-email', password: '' }))) as { data: any };
    expect(status(bad)).toBe(400);
    expect(bad.data.result.error.email).toEqual(['Invalid email']);
  });

  test('rate limited attempts answer 429 with Retry-After', async () => {
    const u = await createUser(sql);
    let last: unknown;
    for (let i = 0; i < 11; i++) last = await act(signInRoute.action, post('/', { email: u.email, password: 'wrong-one' }));
    expect(status(last)).toBe(429);
    expect((last as { data: any }).data.toast).toMatch(/Too many attempts/);
  });

  test('a cross-site post is refused with 403 before anything is read', async () => {
    const u = await createUser(sql);
    const r = await act(signInRoute.action, post('/', { email: u.email, password: PASSWORD }, { origin: 'https://evil.example' }));
    expect(status(r)).toBe(403);
    const [n] = await sql`SELECT count(*)::int AS n FROM sessions WHERE user_id = ${u.id}`;
    expect(n.n).toBe(0);
  });

  test('a signed-in user opening the sign-in page is sent home', async () => {
    const u = await createUser(sql, { roleId: 2 });
    const { cookie } = await sessionFor(sql, u.id);
    const r = (await load(signInRoute.loader, get('/', cookie))) as Response;
    expect(r.headers.get('location')).toBe('/admin/trades/all');
  });
});

describe('sign-up action', () => {
  test('validation messages of docs/specs.md#client-validation', async () => {
    const r = (await act(signUpRoute.action, post('/signup', { email: 'bad', password: 'short', passwordConfirmation: 'other' }))) as { data: any };
    expect(status(r)).toBe(400);
    const e = r.data.result.error;
    expect(e.email).toEqual(['Invalid email']);
    expect(e.password).toEqual(['Password must be at least 8 characters']);
    expect(e.passwordConfirmation).toEqual(['Passwords must match']);
    for (const k of ['fullName', 'phone', 'country', 'city', 'address', 'postalCode', 'currency']) expect(e[k], k).toBeDefined();
    expect(e.promoCode).toBeUndefined();
  });

  test('a valid form creates the account and resets the form', async () => {
    const email = uniqueEmail('form');
    const r = (await act(signUpRoute.action, post('/signup', {
      fullName: 'Form User', email, password: 'Abcdefg-123', passwordConfirmation: 'Abcdefg-123', phone: '612 345 678', country: 'Spain',
      city: 'Madrid', address: 'Calle 1', postalCode: '28001', currency: 'USD',
    }))) as { data: any };
    expect(status(r)).toBe(200);
    expect(r.data.created.verificationSent).toBe(false);
    expect(r.data.result.initialValue).toBeNull(); // resetForm
    const [u] = await sql`SELECT role_id FROM users WHERE email = ${email}`;
    expect(u.role_id).toBe(3);
  });

  test('the phone follows the contact rule in the chosen country: letters or a short number are refused, no account', async () => {
    for (const [phone, message] of [['abc', 'Invalid phone number for this country'], ['12', 'Invalid phone number for this country']]) {
      const email = uniqueEmail('badphone');
      const r = (await act(signUpRoute.action, post('/signup', {
        fullName: 'Phone User', email, password: 'Abcdefg-123', passwordConfirmation: 'Abcdefg-123', phone, country: 'Spain',
        city: 'Madrid', address: 'Calle 1', postalCode: '28001', currency: 'USD',
      }))) as { data: any };
      expect(status(r)).toBe(400);
      expect(r.data.result.error.phone).toEqual([message]);
      expect(await sql`SELECT 1 FROM users WHERE email = ${email}`).toHaveLength(0);
    }
  });

  test('the loader offers the offline country list sorted by common name, named in the page\'s language', async () => {
    const d = (await load(signUpRoute.loader, get('/signup'))) as { countries: { value: string; label: string }[]; currencies: string[] };
    expect(d.countries.length).toBeGreaterThan(200);
    expect(d.countries).toContainEqual({ value: 'Germany', label: 'Germany' });
    const labels = d.countries.map((c) => c.label);
    expect([...labels].sort((a, b) => a.localeCompare(b, 'en'))).toEqual(labels);
    expect(d.currencies.length).toBeGreaterThan(0);
    await sql`INSERT INTO languages (code, name) VALUES ('de', 'Deutsch') ON CONFLICT (code) DO NOTHING`;
    // (the languages are kept per process until the NOTIFY of the change arrives)
    const german = async () => ((await load(signUpRoute.loader, get('/signup', 'lang=de'))) as { countries: { value: string; label: string }[] })
      .countries.find((c) => c.value === 'Germany')?.label;
    await expect.poll(german, { timeout: 5000 }).toBe('Deutschland');
  });
});

describe('sessions', () => {
  test('sign-out revokes the session and clears the cookie', async () => {
    const u = await createUser(sql);
    const s = await sessionFor(sql, u.id);
    const r = (await act(logoutRoute.action, post('/auth/logout', {}, { cookie: s.cookie }))) as Response;
    expect(r.headers.get('location')).toBe('/');
    expect(r.headers.get('set-cookie')).toMatch(new RegExp(`${SESSION_COOKIE}=;.*Max-Age=0`));
    expect(await findSession(sql, s.token)).toBeNull();
    const after = (await load(clientLayout.loader, get('/dashboard', s.cookie))) as Response;
    expect(after.headers.get('location')).toBe('/');
    // with no other live session, the user no longer shows online
    const [row] = await sql`SELECT online FROM users WHERE id = ${u.id}`;
    expect(row.online).toBe(false);
  });

  test('signing out of one browser keeps the user online in another', async () => {
    const u = await createUser(sql);
    const a = await sessionFor(sql, u.id);
    await sessionFor(sql, u.id);
    await act(logoutRoute.action, post('/auth/logout', {}, { cookie: a.cookie }));
    const [row] = await sql`SELECT online FROM users WHERE id = ${u.id}`;
    expect(row.online).toBe(true);
  });

  test('an inactive or deleted user\'s session stops working', async () => {
    const u = await createUser(sql);
    const s = await sessionFor(sql, u.id);
    await sql`UPDATE users SET is_active = false WHERE id = ${u.id}`;
    expect(await findSession(sql, s.token)).toBeNull();
  });

  test('GET /auth/user returns the user and the active balance, scoped to the session', async () => {
    const u = await createUser(sql);
    const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'demo', 'USD') RETURNING id`;
    await sql`UPDATE users SET active_balance_id = ${b.id} WHERE id = ${u.id}`;
    const s = await sessionFor(sql, u.id);
    const res = (await load(userRoute.loader, get('/auth/user', s.cookie))) as Response;
    const body = await res.json();
    expect(body.user.email).toBe(u.email);
    expect(body.activeBalance.id).toBe(Number(b.id));
  });
});

describe('wallet switch', () => {
  test('only one of the user\'s own balances can become active', async () => {
    const u = await createUser(sql);
    const other = await createUser(sql);
    const [mine] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
    const [theirs] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${other.id}, 'real', 'USD') RETURNING id`;
    const s = await sessionFor(sql, u.id);
    await act(walletRoute.action, post('/dashboard/switch-wallet', { balanceId: String(theirs.id), redirectTo: '/deposits' }, { cookie: s.cookie }));
    expect((await sql`SELECT active_balance_id FROM users WHERE id = ${u.id}`)[0].active_balance_id).toBeNull();
    const r = (await act(walletRoute.action, post('/dashboard/switch-wallet', { balanceId: String(mine.id), redirectTo: '/deposits' }, { cookie: s.cookie }))) as Response;
    expect(r.headers.get('location')).toBe('/deposits');
    expect(Number((await sql`SELECT active_balance_id FROM users WHERE id = ${u.id}`)[0].active_balance_id)).toBe(Number(mine.id));
  });

  test('a balance id that is not one (abc, too large, none) goes back with the error toast, never a 500', async () => {
    const u = await createUser(sql);
    const s = await sessionFor(sql, u.id);
    for (const balanceId of ['abc', '99999999999999999999', '', '-1']) {
      const r = (await act(walletRoute.action, post('/dashboard/switch-wallet', { balanceId, redirectTo: '/deposits' }, { cookie: s.cookie }))) as Response;
      expect(r.status, balanceId).toBe(302);
      expect(r.headers.get('location')).toBe('/deposits');
      expect(r.headers.get('set-cookie')).toMatch(/^toast=/);
    }
  });
});

describe('login-as', () => {
  test('an admin signs in as a customer, the session cannot reach staff pages, back to admin returns to /admin; both ends audited', async () => {
    const admin = await createUser(sql, { roleId: 1 });
    const customer = await createUser(sql, { roleId: 3 });
    const staff = await sessionFor(sql, admin.id);
    const r = (await act(loginAsRoute.action, post(`/admin/customers/login-as/${customer.id}`, {}, { cookie: staff.cookie }), { id: String(customer.id) }, '192.0.2.10')) as Response;
    expect(r.headers.get('location')).toBe('/dashboard');
    const token = setCookieToken(r)!;
    const cookie = `${SESSION_COOKIE}=${token}`;
    const s = await findSession(sql, token);
    expect(s).toMatchObject({ impersonatorId: admin.id, parentId: staff.id, user: { id: customer.id } });

    const shell = (await load(clientLayout.loader, get('/dashboard', cookie))) as { impersonating: boolean };
    expect(shell.impersonating).toBe(true);
    expect(status(await load(staffLayout.loader, get('/admin', cookie)))).toBe(403);

    const back = (await act(backRoute.action, post('/authManager/back-to-admin', {}, { cookie }), {}, '192.0.2.10')) as Response;
    expect(back.headers.get('location')).toBe(`/admin/customers/edit/${customer.id}`);
    expect(await findSession(sql, token)).toBeNull();
    const adminToken = setCookieToken(back)!;
    expect((await findSession(sql, adminToken))?.user.id).toBe(admin.id);
    expect(await findSession(sql, staff.token)).toBeNull(); // the old staff token was rotated

    const audits = await sql`SELECT action, actor_id, target_id, ip::text FROM audit_events WHERE target_kind = 'user' AND target_id = ${String(customer.id)} ORDER BY id`;
    expect(audits.map((a) => a.action)).toEqual(['auth.login_as', 'auth.login_as_end']);
    expect(audits.every((a) => Number(a.actor_id) === admin.id && a.ip.startsWith('192.0.2.10'))).toBe(true);
  });

  test('roles other than admin, manager and retention agent cannot, and staff cannot be signed in as', async () => {
    const customer = await createUser(sql, { roleId: 3 });
    for (const role of [3, 4, 5]) {
      const u = await createUser(sql, { roleId: role });
      const s = await sessionFor(sql, u.id);
      const r = await act(loginAsRoute.action, post(`/admin/customers/login-as/${customer.id}`, {}, { cookie: s.cookie }), { id: String(customer.id) });
      expect(status(r), `role ${role}`).toBe(403);
    }
    // a retention agent (docs/specs.md#customer-records) only on the customers they are the retention agent of: others are 404
    const ret = await createUser(sql, { roleId: 6 });
    const rs = await sessionFor(sql, ret.id);
    const notTheirs = await act(loginAsRoute.action, post(`/admin/customers/login-as/${customer.id}`, {}, { cookie: rs.cookie }), { id: String(customer.id) });
    expect(status(notTheirs)).toBe(404);
    await sql`INSERT INTO leads (email, user_id, ret_id) VALUES (${customer.email}, ${customer.id}, ${ret.id})`;
    const theirs = await act(loginAsRoute.action, post(`/admin/customers/login-as/${customer.id}`, {}, { cookie: rs.cookie }), { id: String(customer.id) });
    expect(status(theirs)).toBe(302);
    expect((theirs as Response).headers.get('location')).toBe('/dashboard');
    const manager = await createUser(sql, { roleId: 2 });
    const otherAdmin = await createUser(sql, { roleId: 1 });
    const s = await sessionFor(sql, manager.id);
    const r = await act(loginAsRoute.action, post(`/admin/customers/login-as/${otherAdmin.id}`, {}, { cookie: s.cookie }), { id: String(otherAdmin.id) });
    expect(status(r)).toBe(404); // not a customer: the same answer as an unknown id
    expect(r instanceof Response && setCookieToken(r)).toBeFalsy();
  });

  test('login-as refuses a cross-site post', async () => {
    const admin = await createUser(sql, { roleId: 1 });
    const customer = await createUser(sql, { roleId: 3 });
    const s = await sessionFor(sql, admin.id);
    const r = await act(loginAsRoute.action, post(`/admin/customers/login-as/${customer.id}`, {}, { cookie: s.cookie, origin: 'https://evil.example' }), { id: String(customer.id) });
    expect(status(r)).toBe(403);
  });
});

describe('email verification link', () => {
  test('a bad token redirects to sign-in with an error toast cookie', async () => {
    const r = (await load(verifyRoute.loader, get('/verify-email/nope'), { token: 'nope' })) as Response;
    expect(r.headers.get('location')).toBe('/');
    expect(r.headers.get('set-cookie')).toMatch(/^toast=/);
  });
});

describe('translations', () => {
  test('POST /translations/{lng} records a missing key of the code once, for a signed-in user; GET returns the language\'s texts', async () => {
    await sql`INSERT INTO languages (code, name) VALUES ('en', 'English') ON CONFLICT DO NOTHING`;
    const key = 'Edit Customer'; // a key of the code's key list
    await sql`DELETE FROM translations WHERE language_code = 'en' AND key = ${key}`;
    const { cookie } = await sessionFor(sql, (await createUser(sql)).id);
    const req = () => new Request(`${BASE}/translations/en`, { method: 'POST', headers: { 'content-type': 'application/json', origin: BASE, cookie }, body: JSON.stringify({ key }) });
    const r1 = (await act(translationsRoute.action, req(), { lng: 'en' })) as Response;
    expect(await r1.json()).toEqual({ saved: true });
    const r2 = (await act(translationsRoute.action, req(), { lng: 'en' })) as Response;
    expect(await r2.json()).toEqual({ saved: false });
    const all = await ((await load(translationsRoute.loader, get('/translations/en'), { lng: 'en' })) as Response).json();
    expect(all[key]).toBe(key);
  });
});
