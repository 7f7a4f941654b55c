// The site switch 'two-factor required for staff' (site_settings twoFactor.staffRequired), enforced
// on the server: a staff member without two-factor reaches only /security (and sign-out) until
// they enrol there. Serial: it changes a site-wide setting, put back afterwards.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import * as securityRoute from '~/routes/_client.security.tsx';
import * as clientLayout from '~/routes/_client.tsx';
import * as staffLayout from '~/routes/_staff.tsx';
import * as adminHome from '~/routes/_staff.admin._index.tsx';
import * as dashboardRoute from '~/routes/_client.dashboard.tsx';
import * as loginAsRoute from '~/routes/admin.customers.login-as.$id.tsx';
import * as logoutRoute from '~/routes/auth.logout.tsx';
import * as signInRoute from '~/routes/_auth._index.tsx';
import { db } from '~/shared/db.server.ts';
import { getSetting } from '~/shared/settings.server.ts';
import { findSession } from '~/modules/auth/session.server.ts';
import { totpCode } from '~/modules/auth/two-factor.server.ts';
import { createUser, get, PASSWORD, post, sessionFor, settle, testSql, uniqueIp } from '../helpers.ts';
import { appHandler } from '../app-build.ts';

const sql = testSql();
let before: unknown = null;

async function setStaffRequired(value: 'on' | 'off') {
  await sql`INSERT INTO site_settings (key, value) VALUES ('twoFactor', ${sql.json({ staffRequired: value })})
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
  // the app's pool keeps a copy of site_settings, dropped when PostgreSQL's NOTIFY arrives
  for (let i = 0; i < 100 && (await getSetting(db(), 'twoFactor')).staffRequired !== value; i++) await new Promise((r) => setTimeout(r, 50));
  expect((await getSetting(db(), 'twoFactor')).staffRequired).toBe(value);
}

beforeAll(async () => {
  const [row] = await sql`SELECT value FROM site_settings WHERE key = 'twoFactor'`;
  before = row?.value ?? null;
});
afterAll(async () => {
  if (before === null) await sql`DELETE FROM site_settings WHERE key = 'twoFactor'`;
  else await sql`UPDATE site_settings SET value = ${sql.json(before as never)} WHERE key = 'twoFactor'`;
  await sql.end();
});

const load = (fn: (a: LoaderFunctionArgs) => unknown, request: Request, params: Record<string, string> = {}) =>
  settle(Promise.resolve().then(() => fn({ request, params, context: {} })));
const act = (fn: (a: ActionFunctionArgs) => unknown, request: Request, params: Record<string, string> = {}) =>
  settle(Promise.resolve().then(() => fn({ request, params, context: { clientIp: uniqueIp() } })));
const location = (r: unknown) => (r instanceof Response ? `${r.status} ${r.headers.get('location') ?? ''}`.trim() : 'page');

describe('two-factor required for staff', () => {
  test('off (the default): staff without two-factor open their pages', async () => {
    await setStaffRequired('off');
    const admin = await createUser(sql, { roleId: 1 });
    const { cookie } = await sessionFor(sql, admin.id);
    expect(location(await load(staffLayout.loader, get('/admin', cookie)))).toBe('page');
    expect(location(await load(adminHome.loader, get('/admin', cookie)))).toBe('page');
  });

  test('on: a staff member without two-factor is sent to /security from every page and refused every other call, until enrolled there', async () => {
    await setStaffRequired('on');
    const admin = await createUser(sql, { roleId: 1 });
    const customer = await createUser(sql, { roleId: 3 });
    const { cookie, token } = await sessionFor(sql, admin.id);

    // pages: staff and client areas alike go to /security (layout and page loaders both)
    for (const [fn, path] of [[staffLayout.loader, '/admin'], [adminHome.loader, '/admin'], [clientLayout.loader, '/dashboard'],
      [dashboardRoute.loader, '/dashboard'], [staffLayout.loader, '/admin/trades/all.data']] as const) {
      expect(location(await load(fn, get(path, cookie))), path).toBe('302 /security');
    }
    // calls: refused, and nothing happens (no login-as session)
    const loginAs = await act(loginAsRoute.action, post(`/admin/customers/login-as/${customer.id}`, {}, { cookie }), { id: String(customer.id) });
    expect(location(loginAs)).toBe('403');
    expect((await sql`SELECT count(*)::int AS n FROM sessions WHERE user_id = ${customer.id}`)[0].n).toBe(0);
    // through the server's router and gate: every spelling of a page goes to /security, the
    // realtime ticket is refused, the enrolment page itself opens
    const handler = await appHandler();
    const hit = async (path: string) => {
      const r = await handler(new Request(`http://app.test${path}`, { headers: { cookie, host: 'app.test' }, redirect: 'manual' }));
      await r.arrayBuffer();
      return `${r.status} ${r.headers.get('location') ?? ''}`.trim();
    };
    for (const path of ['/admin', '/Admin', '/admin/users', '/%61dmin/users', '/dashboard']) expect(await hit(path), path).toBe('302 /security');
    // a data request is told to redirect the way single fetch tells it (202 and the location)
    expect(await hit('/ADMIN/trades/all.data')).toBe('202 /security');
    // a GET call gets no data either: it is sent to enrol like a page (the ticket is never signed)
    for (const path of ['/dashboard/ticket', '/dashboard/ticket?topics=user', '/admin/audit/export']) expect(await hit(path), path).toBe('302 /security');
    expect(await hit('/security')).toBe('200');
    // the enrolment page opens (its layout too) and says why
    expect(location(await load(clientLayout.loader, get('/security', cookie)))).toBe('page');
    const page = (await load(securityRoute.loader, get('/security', cookie))) as Awaited<ReturnType<typeof securityRoute.loader>>;
    expect(page.mustEnrol).toBe(true);

    // enrol there
    const start = (await act(securityRoute.action, post('/security', { intent: 'start' }, { cookie }))) as { data: { ok: boolean } };
    expect(start.data.ok).toBe(true);
    const pending = ((await load(securityRoute.loader, get('/security', cookie))) as typeof page).twoFactor.pending!;
    const secret = pending.secret.replace(/\s+/g, '');
    const confirm = (await act(securityRoute.action, post('/security', { intent: 'confirm', code: totpCode(secret) }, { cookie }))) as { data: { ok: boolean; recoveryCodes: string[] } };
    expect(confirm.data).toMatchObject({ ok: true });
    expect(confirm.data.recoveryCodes).toHaveLength(10);

    // now every page of the role opens, in the same session
    expect((await findSession(sql, token))?.user.twoFactor).toBe(true);
    expect(location(await load(staffLayout.loader, get('/admin', cookie)))).toBe('page');
    expect(location(await load(adminHome.loader, get('/admin', cookie)))).toBe('page');
    expect((await load(securityRoute.loader, get('/security', cookie)) as typeof page).mustEnrol).toBe(false);
    // and sign-in asks for the code
    const signed = (await act(signInRoute.action, post('/', { email: admin.email, password: PASSWORD }))) as Response;
    expect(signed.headers.get('location')).toBe('/two-factor');
  });

  test('on: signing in sends staff without two-factor to /security; customers and enrolled staff are not affected', async () => {
    await setStaffRequired('on');
    for (const roleId of [1, 2, 4, 5, 6]) {
      const staff = await createUser(sql, { roleId });
      const r = (await act(signInRoute.action, post('/', { email: staff.email, password: PASSWORD }))) as Response;
      expect(r.headers.get('location'), `role ${roleId}`).toBe('/security');
      const cookie = `__session=${/__session=([^;]+)/.exec(r.headers.get('set-cookie')!)![1]}`;
      expect(location(await load(clientLayout.loader, get('/dashboard', cookie))), `role ${roleId}`).toBe('302 /security');
    }
    const customer = await createUser(sql, { roleId: 3 });
    const r = (await act(signInRoute.action, post('/', { email: customer.email, password: PASSWORD }))) as Response;
    expect(r.headers.get('location')).toBe('/dashboard');
    const { cookie } = await sessionFor(sql, customer.id);
    expect(location(await load(clientLayout.loader, get('/dashboard', cookie)))).toBe('page');
    expect(location(await load(dashboardRoute.loader, get('/dashboard', cookie)))).toBe('page');
  });

  test('on: sign-out still works for a staff member who has not enrolled', async () => {
    await setStaffRequired('on');
    const manager = await createUser(sql, { roleId: 2 });
    const { cookie, token } = await sessionFor(sql, manager.id);
    const r = await act(logoutRoute.action, post('/auth/logout', {}, { cookie }));
    expect(location(r)).toBe('302 /');
    expect(await findSession(sql, token)).toBeNull();
  });

  test('on: a login-as session of a customer is not asked to enrol', async () => {
    await setStaffRequired('on');
    const admin = await createUser(sql, { roleId: 1 });
    const customer = await createUser(sql, { roleId: 3 });
    const { cookie } = await sessionFor(sql, customer.id, { impersonatorId: admin.id });
    expect(location(await load(clientLayout.loader, get('/dashboard', cookie)))).toBe('page');
  });
});
