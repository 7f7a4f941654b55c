// Every page of the permission map, for every demo role, in real Chromium: the roles the map
// allows open it (never a 5xx), the others are refused (403 or sent home), and each page passes
// axe-core (WCAG 2.1 AA) the first time it is opened.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ROUTES, type RoleId } from '../web/app/modules/auth/permissions.ts';
import { database, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const DEMO: Record<RoleId, string> = {
  1: 'admin@demo.broker', 2: 'manager@demo.broker', 3: 'alice@demo.broker',
  4: 'affiliate@demo.broker', 5: 'sales@demo.broker', 6: 'retention@demo.broker',
};

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

describe('every page for every role', () => {
  for (const role of [1, 2, 3, 4, 5, 6] as RoleId[]) {
    test(`${DEMO[role]}: allowed pages open and pass axe, the others are refused`, async () => {
      const page = await newPage(browser);
      await signIn(page, DEMO[role], 'Demo-1234');
      await page.waitForURL((u) => u.pathname !== '/');
      for (const route of ROUTES) {
        const path = concrete(route.path);
        const { status, url } = await visit(page, path);
        expect(status, `${path} as role ${role}`).toBeLessThan(500);
        if (route.roles.includes(role)) {
          // agents open only the customers their lists show them: 404 on others is the rule
          const scoped = route.path === '/admin/customers/edit/:id' && (role === 5 || role === 6);
          if (!scoped && !route.path.startsWith('/deposits/')) expect(status, `${path} as role ${role}`).toBe(200);
          if (status === 200 && !checked.has(route.path)) {
            checked.add(route.path);
            await page.locator('main, [role="main"], body').first().waitFor();
            await expectNoAxeViolations(page).catch((e: Error) => { throw new Error(`${path} as role ${role}: ${e.message}`); });
          }
        } else {
          expect(status === 403 || status === 404 || url !== path, `${path} refused for role ${role} (got ${status} at ${url})`).toBe(true);
        }
      }
      await page.context().close();
    }, 240_000);
  }
});
