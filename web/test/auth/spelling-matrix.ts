// The spelling matrix of test/auth/route-access*.test.ts (docs/specs.md#permissions): every spelling of a
// protected route gets the canonical answer, for every role, through the real router. Split over
// several files so the longest file of the web suite is not this one matrix alone.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CALLS, ROUTES, routeAccess, type RoleId, type RouteAccess } from '~/modules/auth/permissions.ts';
import { appHandler, routeTable } from '../app-build.ts';
import { spellings } from '../spellings.ts';
import { BASE, createUser, ensureGateways, sessionFor, testSql, walletFor, type TestUser } from '../helpers.ts';

const ROLES: (RoleId | 0)[] = [0, 1, 2, 3, 4, 5, 6];

/** Every protected path pattern: the pages and the calls that are not public. */
export const SPELT = [...ROUTES.map((r) => r.path), ...CALLS.filter((c) => c.roles !== 'public').map((c) => c.path)];

export async function answer(handler: (r: Request) => Promise<Response>, method: 'GET' | 'POST', url: string, cookie: string | undefined): Promise<string> {
  const headers: Record<string, string> = { host: 'app.test' };
  if (cookie) headers.cookie = cookie;
  if (method === 'POST') {
    headers.origin = BASE;
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const res = await handler(new Request(BASE + url, { method, headers, body: method === 'POST' ? 'intent=bogus' : undefined, redirect: 'manual' }));
  await res.arrayBuffer();
  const location = res.headers.get('location');
  // a redirect is told apart by where it sends the user, not by how the path was spelled
  return location ? `${res.status} → ${location.toLowerCase().replace(/\/+$/, '')}` : String(res.status);
}

/** Signed-in sessions of every role (0: signed out), and the demo values the patterns' parameters take. */
export function roleSessions() {
  const sql = testSql();
  afterAll(() => sql.end());
  const cookies: Record<number, string | undefined> = {};
  const values: Record<string, string> = {};
  const state: { customer?: TestUser } = {};
  beforeAll(async () => {
    await ensureGateways(sql);
    await sql`INSERT INTO languages (code, name) VALUES ('en', 'English') ON CONFLICT (code) DO NOTHING`;
    // the symbol the patterns take exists before the first request: files side by side add instruments
    // too, and the matrix's answers must not change while it runs
    await sql`INSERT INTO instruments (name, base, quote, category, leverage, digits, bids, asks)
              VALUES ('EUR_USD', 'EUR', 'USD', 'forex', 100, 5, 1.08, 1.0802) ON CONFLICT (name) DO NOTHING`;
    for (const roleId of [1, 2, 3, 4, 5, 6]) {
      const user = await createUser(sql, { roleId });
      cookies[roleId] = (await sessionFor(sql, user.id)).cookie;
      await walletFor(sql, user.id);
    }
    state.customer = await createUser(sql, { roleId: 3 });
    Object.assign(values, { id: String(state.customer.id), code: 'en', symbol: 'EURUSD', category: 'forex', lng: 'en' });
  });
  /** A concrete path of a pattern: known values for its parameters, '1' for the rest. */
  const concrete = (pattern: string) => pattern.replace(/:([a-zA-Z]+)/g, (_m, name: string) => values[name] ?? '1');
  return { sql, cookies, concrete };
}

/** The matrix for the patterns of SPELT whose index is `part` modulo `parts`. */
export function spellingMatrix(part: number, parts: number) {
  const { cookies, concrete } = roleSessions();
  const table = routeTable();
  const modules = import.meta.glob<{ access?: RouteAccess; action?: unknown }>('../../app/routes/*.{ts,tsx}');
  const hasAction: Record<string, boolean> = {};
  beforeAll(async () => {
    for (const r of table) if (r.pattern) hasAction[r.pattern] = !!(await modules[`../../app/routes/${r.file}`]!()).action;
  });

  describe(`every spelling of a protected route gets the canonical answer, for every role (part ${part + 1} of ${parts})`, () => {
    test.each(SPELT.filter((_p, i) => i % parts === part))('%s', async (pattern) => {
      const handler = await appHandler();
      const path = concrete(pattern);
      const rule = routeAccess(pattern);
      for (const role of ROLES) {
        const cookie = cookies[role];
        const canonical = await answer(handler, 'GET', path, cookie);
        const data = await answer(handler, 'GET', `${path === '/' ? '/_root' : path}.data`, cookie);
        for (const other of spellings(path, pattern)) {
          expect(await answer(handler, 'GET', other, cookie), `role ${role} GET ${other} (canonical ${path})`).toBe(canonical);
          if (!other.endsWith('/')) expect(await answer(handler, 'GET', `${other}.data`, cookie), `role ${role} GET ${other}.data`).toBe(data);
        }
        // a role the route refuses is refused its action under every spelling, too
        const refused = role === 0 || (rule.roles !== 'public' && !rule.roles.includes(role));
        if (refused && hasAction[pattern]) {
          const canonicalPost = await answer(handler, 'POST', path, cookie);
          expect(canonicalPost, `role ${role} POST ${path}`).toMatch(role === 0 ? /^(302|303|401|403|404|405)/ : /^(403|404|405)/);
          for (const other of spellings(path, pattern)) {
            expect(await answer(handler, 'POST', other, cookie), `role ${role} POST ${other}`).toBe(canonicalPost);
          }
        }
      }
    }, 60_000);
  });
  return { cookies };
}
