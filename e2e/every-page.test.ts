// Every page of the permission map, for every demo role, in real Chromium: the roles the map
// allows open it (never a 5xx), the others are refused (403 or sent home), each page passes
// axe-core (WCAG 2.1 AA) the first time it is opened, and no page a role may open logs a console
// error or throws (a hydration mismatch, a failed request, a translation key nobody has). The
// customers are alice (on a plan) and bob (none: the plan prompt on every client page); the
// browser is in another time zone than the server, so a time written in the process's own zone
// would not hydrate.
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ROUTES, type RoleId } from '../web/app/modules/auth/permissions.ts';
import { collectErrors, database, hydrated, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const USERS: { email: string; role: RoleId }[] = [
  { email: 'admin@demo.broker', role: 1 }, { email: 'manager@demo.broker', role: 2 },
  { email: 'alice@demo.broker', role: 3 }, { email: 'bob@demo.broker', role: 3 },
  { email: 'affiliate@demo.broker', role: 4 }, { email: 'sales@demo.broker', role: 5 }, { email: 'retention@demo.broker', role: 6 },
];

let browser: Browser;
const sql = database();
let params: Record<string, string>;

beforeAll(async () => {
  browser = await launch();
  const [alice] = await sql`SELECT id FROM users WHERE email = 'alice@demo.broker'`;
  params = { ':id': String(alice.id), ':symbol': 'EUR_USD', ':code': 'en', ':txRef': 'unknown-ref', ':server': 'server' };
});
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

/** A concrete path of a route pattern: the demo customer's id, a real symbol, a language. */
const concrete = (pattern: string) => pattern.replace(/:[a-zA-Z]+/g, (p) => params[p] ?? '1');

const checked = new Set<string>();

async function visit(page: Page, path: string) {
  const res = await page.goto(path);
  return { status: res?.status() ?? 0, url: new URL(page.url()).pathname };
}

// The roles walk side by side (at most e2e/vitest.config.ts's maxConcurrency at once): each in a
// browser context of its own, reading only; the pages wait on the server and the browser in turn.
describe.concurrent('every page for every role', () => {
  for (const { email, role } of USERS) {
    test(`${email}: allowed pages open with no console error and pass axe, the others are refused`, async ({ expect }) => {
      // a zone other than the server's (UTC)
      const page = await newPage(browser, { timezoneId: 'America/New_York' });
      const errors = collectErrors(page);
      await signIn(page, email, 'Demo-1234');
      await page.waitForURL((u) => u.pathname !== '/');
      const failures: string[] = [];
      for (const route of ROUTES) {
        const path = concrete(route.path);
        errors.take();
        const { status, url } = await visit(page, path);
        expect(status, `${path} as ${email}`).toBeLessThan(500);
        if (route.roles.includes(role)) {
          // agents open only the customers their lists show them: 404 on others is the rule
          const scoped = route.path === '/admin/customers/edit/:id' && (role === 5 || role === 6);
          if (!scoped && !route.path.startsWith('/deposits/')) expect(status, `${path} as ${email}`).toBe(200);
          if (status === 200) {
            await hydrated(page);
            for (const e of errors.take()) failures.push(`${path}: ${e}`);
            if (!checked.has(route.path)) {
              checked.add(route.path);
              await page.locator('main, [role="main"], body').first().waitFor();
              await expectNoAxeViolations(page).catch((e: Error) => { throw new Error(`${path} as ${email}: ${e.message}`); });
            }
          }
        } else {
          expect(status === 403 || status === 404 || url !== path, `${path} refused for ${email} (got ${status} at ${url})`).toBe(true);
        }
      }
      expect(failures, `console errors as ${email}`).toEqual([]);
      await page.context().close();
    }, 300_000);
  }
});
