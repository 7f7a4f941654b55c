// Access is a property of the route (docs/specs.md#permissions): every route module declares who
// may use it, the declaration is its entry in the permission map, and the route gate enforces the
// declaration of the route the router matched — so every spelling of a path that reaches a route
// (another case, percent-encoded letters, extra slashes, a data request) gets the answer of the
// canonical spelling, for every role.
import { afterAll, describe, expect, test } from 'vitest';
import { CALLS, LAYOUT_ACCESS, ROUTES, routeAccess, type RoleId, type RouteAccess } from '~/modules/auth/permissions.ts';
import { guardRouteModule } from '~/modules/auth/route-gate.server.ts';
import { appBuild, appHandler, routeTable } from '../app-build.ts';
import { BASE, createUser, get, sessionFor, settle, testSql } from '../helpers.ts';
import { answer, spellingMatrix } from './spelling-matrix.ts';

const sql = testSql();
afterAll(() => sql.end());

const table = routeTable();
const modules = import.meta.glob<{ access?: RouteAccess; loader?: unknown; action?: unknown }>('../../app/routes/*.{ts,tsx}');
const moduleOf = (file: string) => modules[`../../app/routes/${file}`]!();

describe('every route declares who may use it, and the declaration is its own map entry', () => {
  test.each(table.map((r) => [r.file, r.pattern] as const))('%s', async (file, pattern) => {
    const m = await moduleOf(file);
    expect(m.access, `${file} has no access declaration`).toBeDefined();
    if (pattern === null) expect(Object.values(LAYOUT_ACCESS)).toContain(m.access);
    else expect(m.access).toBe(routeAccess(pattern));
  });

  test('every entry of the permission map is one route file', () => {
    const patterns = table.map((r) => r.pattern);
    for (const rule of [...ROUTES, ...CALLS]) expect(patterns.filter((p) => p === rule.path), rule.path).toHaveLength(1);
  });

  test('the root route is declared', async () => {
    expect((await import('~/root.tsx')).access).toBe(LAYOUT_ACCESS.public);
  });
});

describe('the gate', () => {
  const calls: string[] = [];
  const loader = async () => { calls.push('loader'); return 'data'; };
  const action = async () => { calls.push('action'); return 'done'; };

  test('a route without a declaration is closed to everyone, its code never run', async () => {
    const admin = await createUser(sql, { roleId: 1 });
    const { cookie } = await sessionFor(sql, admin.id);
    const m = guardRouteModule({ loader, action } as never) as { loader: (a: unknown) => Promise<unknown>; action: (a: unknown) => Promise<unknown> };
    calls.length = 0;
    expect(((await settle(m.loader({ request: get('/x', cookie), params: {}, context: {} }))) as Response).status).toBe(404);
    expect(((await settle(m.action({ request: new Request(`${BASE}/x`, { method: 'POST', headers: { cookie, origin: BASE } }), params: {}, context: {} }))) as Response).status).toBe(404);
    expect(calls).toEqual([]);
  });

  test('a role the declaration does not list is refused before the loader or action runs', async () => {
    const customer = await createUser(sql, { roleId: 3 });
    const { cookie } = await sessionFor(sql, customer.id);
    const m = guardRouteModule({ access: routeAccess('/admin/users'), loader, action } as never) as { loader: (a: unknown) => Promise<unknown>; action: (a: unknown) => Promise<unknown> };
    calls.length = 0;
    // the path the request names plays no part: the declaration of the module is what counts
    expect(((await settle(m.loader({ request: get('/dashboard', cookie), params: {}, context: {} }))) as Response).status).toBe(403);
    expect(((await settle(m.action({ request: new Request(`${BASE}/dashboard`, { method: 'POST', headers: { cookie, origin: BASE } }), params: {}, context: {} }))) as Response).status).toBe(403);
    const signedOut = (await settle(m.loader({ request: get('/admin/users'), params: {}, context: {} }))) as Response;
    expect(signedOut.headers.get('location')).toBe('/');
    expect(calls).toEqual([]);
  });

  test('a public route runs for anyone; an allowed role runs the code', async () => {
    const admin = await createUser(sql, { roleId: 1 });
    const { cookie } = await sessionFor(sql, admin.id);
    calls.length = 0;
    const open = guardRouteModule({ access: routeAccess('/lang'), loader } as never) as { loader: (a: unknown) => Promise<unknown> };
    expect(await open.loader({ request: get('/lang'), params: {}, context: {} })).toBe('data');
    const staff = guardRouteModule({ access: routeAccess('/admin/users'), loader } as never) as { loader: (a: unknown) => Promise<unknown> };
    expect(await staff.loader({ request: get('/whatever', cookie), params: {}, context: {} })).toBe('data');
    expect(calls).toEqual(['loader', 'loader']);
  });
});

// ------------------------------------------------------------------ spellings, through the real router
// (a third of the matrix here, the rest in route-access-2 and -3: test/auth/spelling-matrix.ts)

const { cookies } = spellingMatrix(0, 3);

test('the attack of the issue: a customer typing /Admin/… gets nothing', async () => {
  const handler = await appHandler();
  await appBuild();
  for (const url of ['/Admin/customers/all', '/ADMIN/users', '/%61dmin/settings', '/Admin/deposits', '/Admin/audit/export', '/admin//users', '/Admin/customers/all.data']) {
    for (const role of [3, 4] as RoleId[]) {
      const a = await answer(handler, 'GET', url, cookies[role]);
      expect(a, `role ${role} ${url}`).toMatch(/^(403|404)/);
    }
  }
});
