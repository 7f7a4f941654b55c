// Access control and sessions: customer records scoped per role, the staff IP whitelist on every
// request, missing translation keys, redirects, the Origin rule, sign-in limits, back to admin.
import { afterAll, describe, expect, test } from 'vitest';
import type { ActionFunctionArgs, LoaderFunctionArgs, ServerBuild } from '@remix-run/node';
import { createRequestHandler } from '@remix-run/node';
import * as signInRoute from '~/routes/_auth._index.tsx';
import * as editRoute from '~/routes/_staff.admin.customers.edit.$id.tsx';
import * as loginAsRoute from '~/routes/admin.customers.login-as.$id.tsx';
import * as backRoute from '~/routes/authManager.back-to-admin.tsx';
import * as translationsRoute from '~/routes/translations.$lng.tsx';
import * as staffLayout from '~/routes/_staff.tsx';
import * as langRoute from '~/routes/lang.tsx';
import * as customersAllRoute from '~/routes/_staff.admin.customers.all.tsx';
import type { RoleId } from '~/modules/auth/permissions.ts';
import { findSession } from '~/modules/auth/session.server.ts';
import { SESSION_COOKIE } from '~/shared/cookies.server.ts';
import { signIn } from '~/modules/auth/auth.server.ts';
import { LIMITS, redisStore, type RateLimitStore } from '~/modules/auth/rate-limit.server.ts';
import { assertSameOrigin } from '~/shared/request.server.ts';
import { safeRedirect } from '~/shared/safe-redirect.ts';
import {
  BASE, createUser, get, PASSWORD, post, postgresStore, sessionFor, setCookieToken, settle, testAuthConfig, testSql, unique, uniqueIp,
} from '../helpers.ts';

const sql = testSql();
afterAll(() => sql.end());

const act = (fn: (a: ActionFunctionArgs) => unknown, request: Request, params: Record<string, string> = {}, ip: string | null = uniqueIp()) =>
  settle(Promise.resolve().then(() => fn({ request, params, context: ip ? { clientIp: ip } : {} })));
const load = (fn: (a: LoaderFunctionArgs) => unknown, request: Request, params: Record<string, string> = {}, ip?: string) =>
  settle(Promise.resolve().then(() => fn({ request, params, context: ip ? { clientIp: ip } : {} })));

function status(r: unknown): number | string {
  if (r instanceof Response) return r.status >= 300 && r.status < 400 ? `redirect:${r.headers.get('location')}` : r.status;
  const d = r as { init?: { status?: number } | null };
  return d?.init?.status ?? 200;
}

// ------------------------------------------------------------------ customer records

describe('customer records are scoped per role', () => {
  test('customer pages open only on customers: staff records and unknown or malformed ids answer 404', async () => {
    const admin = await createUser(sql, { roleId: 1 });
    const manager = await createUser(sql, { roleId: 2 });
    const customer = await createUser(sql, { roleId: 3 });
    const s = await sessionFor(sql, admin.id);
    const m = await sessionFor(sql, manager.id);
    const open = (cookie: string, id: string) => load(editRoute.loader, get(`/admin/customers/edit/${encodeURIComponent(id)}`, cookie), { id }).then(status);
    expect(await open(s.cookie, String(customer.id))).toBe(200);
    expect(await open(m.cookie, String(customer.id))).toBe(200);
    expect(await open(s.cookie, String(admin.id))).toBe(404); // own staff record: Admin & Staffs
    expect(await open(m.cookie, String(admin.id))).toBe(404);
    expect(await open(m.cookie, String(manager.id))).toBe(404);
    for (const bad of ['999999999999', 'abc', '1.5', '-1', '0', '1e3', '99999999999999999999999', ' 1']) {
      expect(await open(s.cookie, bad), bad).toBe(404);
    }
    const [d] = await sql`UPDATE users SET deleted_at = now() WHERE id = ${(await createUser(sql)).id} RETURNING id`;
    expect(await open(s.cookie, String(d.id))).toBe(404);
  });

  test('agents open only the customers assigned to them (sales: agent, retention: retention agent)', async () => {
    const sales = await createUser(sql, { roleId: 5 });
    const ret = await createUser(sql, { roleId: 6 });
    const mine = await createUser(sql);
    const theirs = await createUser(sql);
    await sql`INSERT INTO leads (email, user_id, agent_id, ret_id) VALUES (${mine.email}, ${mine.id}, ${sales.id}, ${ret.id})`;
    await sql`INSERT INTO leads (email, user_id) VALUES (${theirs.email}, ${theirs.id})`;
    for (const agent of [sales, ret]) {
      const { cookie } = await sessionFor(sql, agent.id);
      const open = (id: number) => load(editRoute.loader, get(`/admin/customers/edit/${id}`, cookie), { id: String(id) }).then(status);
      expect(await open(mine.id), `role ${agent.roleId}`).toBe(200);
      expect(await open(theirs.id), `role ${agent.roleId}`).toBe(404);
      expect(await open(agent.id), `role ${agent.roleId}`).toBe(404); // their own staff record
    }
  });

  test('login-as uses the same scope: a staff record or an unknown id is 404 and no session is made', async () => {
    const manager = await createUser(sql, { roleId: 2 });
    const otherAdmin = await createUser(sql, { roleId: 1 });
    const s = await sessionFor(sql, manager.id);
    for (const id of [String(otherAdmin.id), String(manager.id), '999999999999', 'x']) {
      const r = await act(loginAsRoute.action, post(`/admin/customers/login-as/${id}`, {}, { cookie: s.cookie }), { id });
      expect(status(r), id).toBe(404);
    }
    const [n] = await sql`SELECT count(*)::int AS n FROM sessions WHERE impersonator_id = ${manager.id}`;
    expect(n.n).toBe(0);
  });
});

// ------------------------------------------------------------------ IP whitelist

describe('the staff IP whitelist holds on every request', () => {
  test('a whitelist added after sign-in blocks the live session at once; a listed address keeps working', async () => {
    const admin = await createUser(sql, { roleId: 1 });
    const r = (await act(signInRoute.action, post('/', { email: admin.email, password: PASSWORD }), {}, '198.51.100.7')) as Response;
    const cookie = `${SESSION_COOKIE}=${setCookieToken(r)}`;
    expect(status(await load(staffLayout.loader, get('/admin', cookie), {}, '198.51.100.7'))).toBe(200);

    await sql`INSERT INTO user_ip_whitelist (user_id, ip_address) VALUES (${admin.id}, '203.0.113.0/24')`;
    expect(status(await load(staffLayout.loader, get('/admin', cookie), {}, '198.51.100.7'))).toBe('redirect:/');
    // without the request's address known, the address it signed in from is checked
    expect(status(await load(staffLayout.loader, get('/admin', cookie)))).toBe('redirect:/');
    expect(status(await load(staffLayout.loader, get('/admin', cookie), {}, '203.0.113.9'))).toBe(200);
  });

  test('a route handed no load context still checks the request\'s own address (the header web/server.mjs sets)', async () => {
    const admin = await createUser(sql, { roleId: 1 });
    const r = (await act(signInRoute.action, post('/', { email: admin.email, password: PASSWORD }), {}, '203.0.113.20')) as Response;
    const cookie = `${SESSION_COOKIE}=${setCookieToken(r)}`;
    await sql`INSERT INTO user_ip_whitelist (user_id, ip_address) VALUES (${admin.id}, '203.0.113.20')`;
    const from = (ip: string) => new Request(`${BASE}/admin/customers/all`, { headers: { cookie, 'x-broker-client-ip': ip } });
    process.env.CLIENT_IP_HEADER = 'x-broker-client-ip';
    try {
      expect(status(await load(customersAllRoute.loader, from('203.0.113.20')))).toBe(200);
      // signed in from a listed address, now calling from another one
      expect(status(await load(customersAllRoute.loader, from('198.51.100.77')))).toBe('redirect:/');
    } finally {
      delete process.env.CLIENT_IP_HEADER;
    }
    // without web/server.mjs the header is nobody's word: a client cannot claim a listed address
    const claimed = new Request(`${BASE}/admin/customers/all`, { headers: { cookie, 'x-broker-client-ip': '198.51.100.77' } });
    expect(status(await load(customersAllRoute.loader, claimed))).toBe(200);
  });

  test('a login-as session is held to its staff member\'s whitelist', async () => {
    const admin = await createUser(sql, { roleId: 1 });
    const customer = await createUser(sql);
    const staff = await sessionFor(sql, admin.id);
    const r = (await act(loginAsRoute.action, post(`/admin/customers/login-as/${customer.id}`, {}, { cookie: staff.cookie }), { id: String(customer.id) }, '198.51.100.8')) as Response;
    const token = setCookieToken(r)!;
    expect((await findSession(sql, token, '198.51.100.8'))?.user.id).toBe(customer.id);
    await sql`INSERT INTO user_ip_whitelist (user_id, ip_address) VALUES (${admin.id}, '203.0.113.5')`;
    expect(await findSession(sql, token, '198.51.100.8')).toBeNull();
    expect((await findSession(sql, token, '203.0.113.5'))?.user.id).toBe(customer.id);
  });
});

// ------------------------------------------------------------------ translations

describe('POST /translations/{lng}', () => {
  const postKey = (key: string, cookie?: string) =>
    new Request(`${BASE}/translations/en`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: BASE, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify({ key }),
    });

  test('anonymous visitors cannot record keys', async () => {
    await sql`INSERT INTO languages (code, name) VALUES ('en', 'English') ON CONFLICT DO NOTHING`;
    const r = await act(translationsRoute.action, postKey('Dashboard'), { lng: 'en' });
    expect(status(r)).toBe(401);
  });

  test('a key outside the code\'s key list is not stored (answered saved: false, no error for the page); a known missing key is stored', async () => {
    const code = 'x' + unique('').slice(-1).replace(/[^a-z]/, 'q');
    await sql`INSERT INTO languages (code, name) VALUES (${code}, 'Test') ON CONFLICT (code) DO NOTHING`;
    const u = await createUser(sql);
    const { cookie } = await sessionFor(sql, u.id);
    const junk = `Junk ${unique()}`;
    const req = (key: string) => new Request(`${BASE}/translations/${code}`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: BASE, cookie }, body: JSON.stringify({ key }),
    });
    const r = (await act(translationsRoute.action, req(junk), { lng: code })) as Response;
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ saved: false });
    expect(await sql`SELECT 1 FROM translations WHERE key = ${junk}`).toHaveLength(0);
    await sql`DELETE FROM translations WHERE language_code = ${code} AND key = 'Dashboard'`;
    const ok = (await act(translationsRoute.action, req('Dashboard'), { lng: code })) as Response;
    expect(await ok.json()).toEqual({ saved: true });
  });
});

// ------------------------------------------------------------------ redirects

describe('safeRedirect', () => {
  const nasty = [
    '//evil.example', '/\\evil.example', '\\\\evil.example', '/\t/evil.example/', '/\n/evil.example', '/\r\n/evil.example',
    '/ /evil.example', '/\u000b/evil.example', '/\u00a0/evil.example', '%2F%2Fevil.example', 'javascript:alert(1)',
    'https://evil.example', 'http:/evil.example', ' /evil', '\t//evil.example', '/%09/evil.example', '/x\r\nSet-Cookie: a=b',
    '', 'dashboard', '/.//evil.example', '/..//evil.example',
  ];
  test.each(nasty.map((s) => [JSON.stringify(s), s]))('%s goes to the default', (_, input) => {
    const out = safeRedirect(input, '/home');
    // whatever comes back resolves to this origin
    expect(new URL(out, 'http://app.test').origin).toBe('http://app.test');
    expect(out === '/home' || !out.startsWith('//')).toBe(true);
    if (!input.startsWith('/%09') && !input.startsWith('/%')) expect(out).toBe('/home');
  });

  test('same-origin paths pass with their query and hash', () => {
    expect(safeRedirect('/deposits?x=1#top')).toBe('/deposits?x=1#top');
    expect(safeRedirect('/admin/crm/sales/all')).toBe('/admin/crm/sales/all');
  });

  test('a CRLF in redirectTo is not a 500', async () => {
    const r = await act(langRoute.action, post('/lang', { lang: 'en', redirectTo: '/\r\nx' }));
    expect(status(r)).toBe('redirect:/');
  });
});

// ------------------------------------------------------------------ Origin

describe('state-changing requests need an Origin when they carry a session cookie', () => {
  const req = (headers: Record<string, string>) => new Request('http://app.test/x', { method: 'POST', headers });
  const refused = (r: Request) => {
    try {
      assertSameOrigin(r);
      return false;
    } catch (e) {
      return e instanceof Response && e.status === 403;
    }
  };

  test('a POST with a session cookie and neither Origin nor Sec-Fetch-Site is refused with 403', () => {
    expect(refused(req({ cookie: `${SESSION_COOKIE}=abc` }))).toBe(true);
    expect(refused(req({ cookie: `lang=en; ${SESSION_COOKIE}=abc`, 'sec-fetch-site': 'same-origin' }))).toBe(true);
    expect(refused(req({ cookie: `${SESSION_COOKIE}=abc`, origin: 'http://app.test' }))).toBe(false);
    expect(refused(req({ cookie: 'lang=en' }))).toBe(false); // no session: a non-browser client
    expect(refused(req({}))).toBe(false);
  });

  test('a signed-in action posted without Origin changes nothing', async () => {
    const admin = await createUser(sql, { roleId: 1 });
    const customer = await createUser(sql);
    const s = await sessionFor(sql, admin.id);
    const r = await act(loginAsRoute.action, post(`/admin/customers/login-as/${customer.id}`, {}, { cookie: s.cookie, origin: null }), { id: String(customer.id) });
    expect(status(r)).toBe(403);
  });
});

// ------------------------------------------------------------------ sign-in limits

describe('sign-in limits count failures only', () => {
  const store = postgresStore(sql);
  const cfg = testAuthConfig();

  test('more good sign-ins than the limit in one window do not lock the user', async () => {
    const u = await createUser(sql);
    const ip = uniqueIp();
    for (let i = 0; i < LIMITS.loginEmail.max + 2; i++) {
      await expect(signIn(sql, store, cfg, { email: u.email, password: PASSWORD, remember: false, ip })).resolves.toMatchObject({ userId: u.id });
    }
  });

  test('a success resets the account\'s count of failures', async () => {
    const u = await createUser(sql);
    const attempt = (password: string) => signIn(sql, store, cfg, { email: u.email, password, remember: false, ip: uniqueIp() }).then(() => 'ok', (e) => e.status);
    for (let i = 0; i < LIMITS.loginEmail.max - 1; i++) expect(await attempt('wrong-pass')).toBe(401);
    expect(await attempt(PASSWORD)).toBe('ok');
    for (let i = 0; i < LIMITS.loginEmail.max - 1; i++) expect(await attempt('wrong-pass')).toBe(401);
    expect(await attempt(PASSWORD)).toBe('ok');
  });

  test.runIf(process.env.TEST_REDIS_URL)('the Redis store takes a hit back and resets like the PostgreSQL one', async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    try {
      for (const st of [redisStore(redis as never), store] as RateLimitStore[]) {
        const key = `test:${unique()}`;
        await st.hit(key, 60);
        await st.hit(key, 60);
        await st.undo(key);
        expect((await st.hit(key, 60)).hits).toBe(2);
        await st.reset(key);
        await st.undo(key); // nothing to take back: no negative count, no key without expiry
        expect((await st.hit(key, 60)).hits).toBe(1);
      }
    } finally {
      redis.disconnect();
    }
  });

  test('a 429 of the sign-in form reaches the browser with Retry-After', async () => {
    const u = await createUser(sql);
    const ip = uniqueIp();
    const handler = createRequestHandler(testBuild(), 'production');
    const hit = () => handler(new Request(`${BASE}/_root.data?index`, {
      method: 'POST', headers: { host: 'app.test', origin: BASE, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: u.email, password: 'wrong-pass' }),
    }), { clientIp: ip });
    for (let i = 0; i < LIMITS.loginEmail.max; i++) expect((await hit()).status).toBe(401);
    const r = await hit();
    expect(r.status).toBe(429);
    const retry = Number(r.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(LIMITS.loginEmail.windowSeconds);
  });
});

/** A one-route server build, so the test sees the response Remix really sends (headers included). */
function testBuild(): ServerBuild {
  const routes: Record<string, { id: string; parentId?: string; path?: string; index?: boolean; module: unknown }> = {
    root: { id: 'root', path: '', module: { default: () => null } },
    'routes/_auth._index': { id: 'routes/_auth._index', parentId: 'root', index: true, module: signInRoute },
  };
  return {
    mode: 'production', basename: '/', publicPath: '/', assetsBuildDirectory: '/tmp', isSpaMode: false,
    future: { v3_fetcherPersist: true, v3_relativeSplatPath: false, v3_throwAbortReason: true, v3_routeConfig: false, v3_singleFetch: true, v3_lazyRouteDiscovery: true, unstable_optimizeDeps: false },
    entry: { module: { default: () => new Response('<html></html>', { headers: { 'content-type': 'text/html' } }) } },
    routes,
    assets: {
      url: '/manifest.js', version: 'test', entry: { module: '/entry.js', imports: [] },
      routes: Object.fromEntries(Object.values(routes).map((r) => [r.id, { id: r.id, parentId: r.parentId, path: r.path, index: r.index, module: '/x.js', hasAction: true, hasLoader: true, hasClientAction: false, hasClientLoader: false, hasErrorBoundary: false }])),
    },
  } as unknown as ServerBuild;
}

// ------------------------------------------------------------------ back to admin

describe('leaving login-as', () => {
  test('each staff role returns to the record of the customer it left, which opens for them', async () => {
    for (const role of [1, 2, 6] as RoleId[]) {
      const staff = await createUser(sql, { roleId: role });
      const customer = await createUser(sql);
      // a retention agent signs in as (and opens) only the customers they are the retention agent of
      if (role === 6) await sql`INSERT INTO leads (email, user_id, ret_id) VALUES (${customer.email}, ${customer.id}, ${staff.id})`;
      const s = await sessionFor(sql, staff.id);
      const r = (await act(loginAsRoute.action, post(`/admin/customers/login-as/${customer.id}`, {}, { cookie: s.cookie }), { id: String(customer.id) })) as Response;
      const cookie = `${SESSION_COOKIE}=${setCookieToken(r)}`;
      const back = (await act(backRoute.action, post('/authManager/back-to-admin', {}, { cookie }))) as Response;
      const record = `/admin/customers/edit/${customer.id}`;
      expect(back.headers.get('location'), `role ${role}`).toBe(record);
      // and that record opens for them
      const home = `${SESSION_COOKIE}=${setCookieToken(back)}`;
      expect(status(await load(editRoute.loader, get(record, home), { id: String(customer.id) })), `role ${role}`).toBe(200);
    }
  });
});
