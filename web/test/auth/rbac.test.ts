// The RBAC matrix: every route of the permission map × every role 1–6, through the route
// modules' own loaders (and their layout's), plus signed-out visitors.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { ROUTES, accessFor, menuFor, MENU, type RoleId, ROLE_HOME } from '~/modules/auth/permissions.ts';
import { createUser, ensureGateways, get, sessionFor, settle, testSql, walletFor, type TestUser } from '../helpers.ts';

const sql = testSql();
afterAll(() => sql.end());

type Loader = (args: LoaderFunctionArgs) => Promise<unknown>;
const modules = import.meta.glob<{ loader?: Loader }>('../../app/routes/*.tsx');

/** The route file that serves a map path (Remix flat routes, as the files are named). */
function routeFile(path: string, area: 'client' | 'staff'): string {
  const segs = path.split('/').filter(Boolean).map((s) => (s.startsWith(':') ? '$' + s.slice(1) : s === 'server' ? '[server]' : s));
  const hasChildren = ROUTES.some((r) => r.path !== path && r.path.startsWith(path + '/'));
  const name = path.startsWith('/mobile-chart') ? segs.join('.') : `${area === 'client' ? '_client' : '_staff'}.${segs.join('.')}${hasChildren ? '._index' : ''}`;
  return `../../app/routes/${name}.tsx`;
}

function concrete(path: string, user: TestUser | null): string {
  // a deposit page opens on the user's own real wallet and an active gateway (others' are 404)
  const wallet = user ? wallets[user.id] : 1;
  if (path === '/deposits/bank/:id') return `/deposits/bank/${wallet}?amount=100`;
  if (path === '/deposits/crypto/:id') return `/deposits/crypto/usdt?balance=${wallet}&amount=100`;
  // the PayPal page opens on the user's own pending PayPal deposit (others' are 404)
  if (path === '/deposits/paypal/:txRef') return `/deposits/paypal/${user ? paypalDeposits[user.id] : 1}`;
  // the start page of a form payment opens on the user's own pending deposit with its form (others' are 404)
  if (path === '/deposits/start/:depositId') return `/deposits/start/${user ? formDeposits[user.id] : 1}`;
  // a language's translations open on a language that exists (others are 404)
  if (path === '/admin/languages/:code') return '/admin/languages/en';
  // a customer's page opens on a customer every allowed role may see (see beforeAll)
  const id = path === '/admin/customers/edit/:id' ? customer.id : user ? user.id + 1_000_000 : 1;
  return path.replace(/:id\b/, String(id)).replace(/:([a-zA-Z]+)/g, 'x1');
}

const users: Record<number, { user: TestUser; cookie: string }> = {};
const wallets: Record<number, number> = {};
const paypalDeposits: Record<number, number> = {};
const formDeposits: Record<number, number> = {};
let customer: TestUser;
beforeAll(async () => {
  await ensureGateways(sql);
  await sql`INSERT INTO languages (code, name) VALUES ('en', 'English') ON CONFLICT (code) DO NOTHING`;
  for (const roleId of [1, 2, 3, 4, 5, 6]) {
    const user = await createUser(sql, { roleId });
    users[roleId] = { user, cookie: (await sessionFor(sql, user.id)).cookie };
    wallets[user.id] = await walletFor(sql, user.id);
    const [d] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total)
                          VALUES (${user.id}, ${wallets[user.id]}, 'paypal', 100, 0, 100) RETURNING id`;
    paypalDeposits[user.id] = Number(d.id);
    const [pm] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total)
                           VALUES (${user.id}, ${wallets[user.id]}, 'perfectmoney', 100, 0, 100) RETURNING id`;
    await sql`INSERT INTO payment_starts (deposit_id, action, method, fields)
              VALUES (${pm.id}, 'https://perfectmoney.is/api/step1.asp', 'POST', ${sql.json({ PAYMENT_ID: `dep-${pm.id}` })})`;
    formDeposits[user.id] = Number(pm.id);
  }
  // a client assigned to this file's sales and retention agents
  customer = await createUser(sql, { roleId: 3 });
  await sql`INSERT INTO leads (email, user_id, agent_id, ret_id) VALUES (${customer.email}, ${customer.id}, ${users[5].user.id}, ${users[6].user.id})`;
});

async function status(file: string, path: string, cookie?: string): Promise<number | 'redirect:/' | string> {
  const mod = await modules[file]!();
  const layoutFile = file.includes('/_client.') ? '../../app/routes/_client.tsx' : file.includes('/_staff.') ? '../../app/routes/_staff.tsx' : null;
  const results: (number | string)[] = [];
  for (const f of [layoutFile, file]) {
    if (!f) continue;
    const m = f === file ? mod : await modules[f]!();
    const res = await settle(m.loader!({ request: get(path, cookie), params: accessFor(path.split('?')[0], 1).params ?? {}, context: {} }));
    if (res instanceof Response) {
      if (res.status >= 300 && res.status < 400) results.push(`redirect:${res.headers.get('location')}`);
      else results.push(res.status);
    } else results.push(200);
  }
  // the page is allowed only if the layout and the page both allow it; both must agree
  expect(new Set(results).size, `${path}: layout and page disagree: ${results.join(', ')}`).toBe(1);
  return results[0];
}

describe('every route of the permission map has a route module with a guarded loader', () => {
  test.each(ROUTES.map((r) => [r.path, r.area] as const))('%s', (path, area) => {
    const file = routeFile(path, area);
    expect(modules[file], `missing ${file}`).toBeDefined();
  });
});

describe('route × role matrix', () => {
  for (const rule of ROUTES) {
    test(`${rule.path} allows exactly roles ${rule.roles.join(',')}`, async () => {
      const file = routeFile(rule.path, rule.area);
      const outcome: Record<number, number | string> = {};
      for (const roleId of [1, 2, 3, 4, 5, 6]) {
        const { user, cookie } = users[roleId];
        outcome[roleId] = await status(file, concrete(rule.path, user), cookie);
      }
      for (const roleId of [1, 2, 3, 4, 5, 6] as RoleId[]) {
        expect(outcome[roleId], `role ${roleId} on ${rule.path}`).toBe(rule.roles.includes(roleId) ? 200 : 403);
      }
      // signed out → redirect to '/'
      expect(await status(file, concrete(rule.path, null))).toBe('redirect:/');
    });
  }

  test('no one opens a staff record as a customer page, their own included', async () => {
    const file = routeFile('/admin/customers/edit/:id', 'staff');
    const mod = await modules[file]!();
    for (const roleId of [1, 2, 5, 6]) {
      for (const target of [1, 2, 4, 5, 6]) {
        const path = `/admin/customers/edit/${users[target].user.id}`;
        const res = await settle(mod.loader!({ request: get(path, users[roleId].cookie), params: { id: String(users[target].user.id) }, context: {} }));
        expect(res instanceof Response ? res.status : 200, `role ${roleId} on role ${target}`).toBe(404);
      }
    }
  });
});

describe('the map itself', () => {
  test('a path the map does not know is closed to every role; paths are read as the router reads them', () => {
    for (const r of [1, 2, 3, 4, 5, 6]) expect(accessFor('/admin/no-such-page', r).allowed).toBe(false);
    for (const r of [1, 2, 3, 4, 5, 6]) expect(accessFor('/no-such-page', r).allowed).toBe(false);
    expect(accessFor('/affiliate/leads/api/x', 3).allowed).toBe(false);
    for (const spelt of ['/Admin/users', '/ADMIN/USERS', '/%61dmin/users', '//admin//users/', '/admin/users.data']) {
      expect(accessFor(spelt, 3).allowed, spelt).toBe(false);
      expect(accessFor(spelt, 1).allowed, spelt).toBe(true);
    }
    expect(accessFor('/admin/customers/login-as/5', 2).allowed).toBe(true);
    expect(accessFor('/admin/customers/login-as/5', 5).allowed).toBe(false);
  });

  test('each role home is a route that role may open', () => {
    for (const [role, home] of Object.entries(ROLE_HOME)) expect(accessFor(home, Number(role)).allowed, home).toBe(true);
  });

  test('the sidebar shows a role only entries it may open, with the headings of the navigation table', () => {
    const links = (role: number) => menuFor(role).flatMap((m) => (m.type === 'expandable' ? m.children!.map((c) => c.link!) : m.link ? [m.link] : []));
    const headings = (role: number) => menuFor(role).filter((m) => m.type === 'section').map((m) => m.title);
    for (const role of [1, 2, 3, 4, 5, 6]) for (const l of links(role)) expect(accessFor(l, role).allowed, `${role} ${l}`).toBe(true);
    expect(headings(1)).toEqual(['Transactions', 'User Management', 'Leads Management', 'Trade Management', 'Site Management', 'Server Management']);
    // a manager sees the pricing list (the spec: admin or manager) under its heading, and nothing else of Trade Management
    expect(headings(2)).toEqual(['Transactions', 'User Management', 'Trade Management']);
    expect(links(2)).toContain('/admin/pricing');
    expect(links(2)).not.toContain('/admin/spreads');
    expect(headings(4)).toEqual(['Leads Management']);
    expect(links(2)).not.toContain('/admin/settings');
    expect(links(2)).toContain('/admin/trades/all');
    expect(links(4).sort()).toEqual(['/admin/promo-code', '/affiliate', '/affiliate/api']);
    expect(new Set(links(5))).toEqual(new Set(['/admin/crm/sales/all', '/admin/crm/sales/manual', '/admin/crm/sales/live', '/admin/promo-code']));
    expect(links(6)).toContain('/admin/crm/retention');
    expect(links(3)).toEqual([]);
    // every MENU link is in the map
    for (const m of MENU) for (const l of [m.link, ...(m.children ?? []).map((c) => c.link)]) if (l) expect(ROUTES.some((r) => r.path === l)).toBe(true);
  });
});
