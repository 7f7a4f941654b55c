// The bell in real Chromium against the running stack: a customer with unread notifications sees
// the count as the badge, opens the bell (axe), marks all read and the badge disappears; a new
// notification arriving over the realtime stream brings the badge back without a reload; opening
// one goes to its url and marks it read; the page of all notifications (axe) pages and marks.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const ENGINE = process.env.E2E_ENGINE_URL ?? 'http://127.0.0.1:4000';
const PASSWORD = 'E2e-pass-1234';

function engineSecret(): string {
  if (process.env.ENGINE_SECRET) return process.env.ENGINE_SECRET;
  const file = path.resolve(import.meta.dirname, '../.data/secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')).ENGINE_SECRET;
  return 'dev-only-engine-secret-change-me';
}

const sql = database();
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

async function customerWith(n: number) {
  const u = await insertUser(sql, { password: PASSWORD });
  await sql`INSERT INTO notifications (user_id, title, description, url)
            SELECT ${u.id}, 'E2E note ' || i, 'Something happened ' || i, CASE WHEN i = 1 THEN '/statements' END FROM generate_series(1, ${n}) i`;
  return u;
}
const unread = async (userId: number) => (await sql`SELECT count(*)::int AS n FROM notifications WHERE user_id = ${userId} AND read_at IS NULL`)[0].n as number;
const bell = (page: Page) => page.locator('details.notifications > summary');
const badge = (page: Page) => page.getByTestId('notification-badge');

describe('the bell', () => {
  test('a customer opens the bell, marks all read and the badge disappears; a live notification brings it back', async () => {
    const c = await customerWith(3);
    const page = await newPage(browser);
    await signIn(page, c.email, PASSWORD);
    await page.waitForURL('**/dashboard');
    await expect.poll(() => badge(page).textContent()).toBe('3');
    expect(await bell(page).getAttribute('aria-label')).toBe('Notifications, 3 unread');
    await bell(page).click();
    const menu = page.locator('details.notifications .dropdown-menu');
    await menu.getByText('E2E note 3').waitFor();
    await expectNoAxeViolations(page);
    await menu.getByRole('button', { name: 'Mark all read' }).click();
    await page.getByRole('region', { name: 'Notifications' }).getByText('Notifications marked as read').waitFor();
    await badge(page).waitFor({ state: 'detached' });
    expect(await bell(page).getAttribute('aria-label')).toBe('Notifications');
    expect(await unread(c.id)).toBe(0);
    // still none after a reload: it is the database, not the page, that says so
    await page.reload();
    await bell(page).waitFor();
    expect(await badge(page).count()).toBe(0);

    // a notification arrives the way the platform sends one (row, then the user's live event)
    await page.evaluate(() => { (window as unknown as { __noReload?: boolean }).__noReload = true; });
    const [n] = await sql`INSERT INTO notifications (user_id, title, description) VALUES (${c.id}, 'E2E live note', 'Just now') RETURNING id`;
    await expect.poll(async () => {
      const res = await fetch(`${ENGINE}/v1/events`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-secret': engineSecret() },
        body: JSON.stringify({ topic: `user:${c.id}`, event: 'notification', data: { id: Number(n.id), title: 'E2E live note', description: 'Just now', url: null } }),
      });
      // the stream may still be connecting: publish until the page has it — every 3 s, as each
      // event restarts the page's reload, and a loaded machine's reload can take over a second
      return res.ok && (await badge(page).count()) === 1;
    }, { timeout: 45_000, intervals: [3000] }).toBe(true);
    expect(await badge(page).textContent()).toBe('1');
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    await page.context().close();
  }, 120_000);

  test('opening a notification with a url goes there and marks it read; one without a url is marked read in place', async () => {
    const c = await customerWith(2);
    const page = await newPage(browser);
    await signIn(page, c.email, PASSWORD);
    await page.waitForURL('**/dashboard');
    await bell(page).click();
    const menu = page.locator('details.notifications .dropdown-menu');
    await menu.getByRole('button', { name: /E2E note 2/ }).click();
    await expect.poll(() => badge(page).textContent()).toBe('1');
    // the dropdown stays open: the next one is right there
    await menu.getByRole('button', { name: /E2E note 1/ }).click();
    await page.waitForURL('**/statements');
    await badge(page).waitFor({ state: 'detached' });
    expect(await unread(c.id)).toBe(0);
    await page.context().close();
  }, 60_000);
});

describe('the page of all notifications', () => {
  test('pages 15 at a time, marks one read, and is reached from the bell', async () => {
    const c = await customerWith(17);
    const page = await newPage(browser);
    await signIn(page, c.email, PASSWORD);
    await page.waitForURL('**/dashboard');
    await bell(page).click();
    await page.getByRole('link', { name: 'View all notifications' }).click();
    await page.waitForURL('**/notifications');
    await page.getByRole('heading', { name: 'Notifications' }).waitFor();
    await expectNoAxeViolations(page);
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(15);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByRole('button', { name: /^Mark read \(#\d+\)$/ }).first().click();
    await expect.poll(() => unread(c.id)).toBe(16);
    await expect.poll(() => badge(page).textContent()).toBe('16');
    await page.getByRole('button', { name: 'Mark all read' }).first().click();
    await expect.poll(() => unread(c.id)).toBe(0);
    await badge(page).waitFor({ state: 'detached' });
    await expectNoAxeViolations(page);
    await page.context().close();
  }, 60_000);

  test('staff have the page in the back-office', async () => {
    const u = await insertUser(sql, { password: PASSWORD, roleId: 2 });
    await sql`INSERT INTO notifications (user_id, title) VALUES (${u.id}, 'E2E staff note')`;
    const page = await newPage(browser);
    await signIn(page, u.email, PASSWORD);
    await page.waitForURL('**/admin/**');
    await page.goto('/admin/notifications');
    await page.getByRole('main').getByText('E2E staff note', { exact: true }).waitFor();
    await expect.poll(() => badge(page).textContent()).toBe('1');
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: 'Mark all read' }).first().click();
    await badge(page).waitFor({ state: 'detached' });
    await page.context().close();
  }, 60_000);
});
