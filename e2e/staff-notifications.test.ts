// Staff notifications live, in real Chromium against the running stack: an admin has /admin open
// (the dashboard, which mounts its own price stream inside the layout's user stream); a customer
// requests a withdrawal through the app; without a reload the admin gets the toast and the bell's
// badge, the dropdown shows the request (axe), and opening it goes to Pending Withdraws.
// SCREENSHOT_DIR=… also saves the open dropdown at 1440 and 390 px.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';
import { formatMoney } from '../web/app/components/ui/format.ts';

const PASSWORD = 'E2e-pass-1234';
const sql = database();
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

async function shoot(page: Page, name: string) {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${dir}/${name}-${width}.png` });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

const bell = (page: Page) => page.locator('details.notifications > summary');
const badge = (page: Page) => page.getByTestId('notification-badge');

describe('staff notifications', () => {
  test('a customer requests a withdrawal: the admin\'s bell shows it live and leads to Pending Withdraws', async () => {
    const admin = await insertUser(sql, { password: PASSWORD, roleId: 1, fullName: 'Ada Admin' });
    const c = await insertUser(sql, { password: PASSWORD, fullName: 'Wanda Withdraw' });
    const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${c.id}, 'real', 'USD') RETURNING id`;
    await sql`SELECT * FROM post_ledger(${b.id}, 500, 'adjustment', 'e2e', ${`sn-${b.id}`})`;
    await sql`UPDATE users SET active_balance_id = ${b.id} WHERE id = ${c.id}`;
    await sql`INSERT INTO kyc_documents (user_id, type, status, decided_at) VALUES (${c.id}, 'passport', 'approved', now())`;

    // the admin, on /admin: the layout's stream is the user topic alone
    const staff = await newPage(browser);
    const stream = staff.waitForResponse((r) => r.url().includes('/v1/stream') && new URL(r.url()).searchParams.get('topics') === `user:${admin.id}`);
    await signIn(staff, admin.email, PASSWORD);
    await staff.waitForURL('**/admin');
    expect((await stream).status()).toBe(200);
    await staff.evaluate(() => { (window as unknown as { __noReload?: boolean }).__noReload = true; });
    expect(await badge(staff).count()).toBe(0);

    // the customer asks for a withdrawal through the app
    const page = await newPage(browser);
    await signIn(page, c.email, PASSWORD);
    await page.waitForURL((u) => u.pathname !== '/');
    await page.goto('/withdraws');
    await page.getByRole('heading', { name: 'Bank withdrawal' }).waitFor();
    await page.getByLabel('Amount', { exact: true }).fill('120');
    await page.getByLabel('Bank name').fill('Banque Populaire');
    await page.getByLabel('Account number').fill('FR76 3000 6000 0112 3456 7890 189');
    await page.getByLabel('Swift code').fill('ccbpfrpp');
    await page.getByLabel('Bank country').selectOption('France');
    await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Withdraw request submitted successfully' }).waitFor();
    const [w] = await sql`SELECT id FROM withdrawals WHERE user_id = ${c.id}`;
    await page.context().close();

    // live on the admin's page: the toast, the badge, the dropdown; no reload
    await staff.getByRole('status').filter({ hasText: `Withdrawal #${w.id} requested` }).waitFor({ timeout: 15_000 });
    await expect.poll(() => badge(staff).textContent()).toBe('1');
    expect(await staff.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    await bell(staff).click();
    const item = staff.locator('details.notifications .dropdown-menu').getByRole('button', { name: new RegExp(`Withdrawal #${w.id} requested`) });
    await item.waitFor();
    expect(await item.textContent()).toContain(`Wanda Withdraw asked to withdraw ${formatMoney('120', 'USD', 'en')}.`);
    await expectNoAxeViolations(staff);
    await shoot(staff, 'staff-bell');
    await item.click();
    await staff.waitForURL('**/admin/withdraws/pending');
    await staff.getByRole('heading', { name: 'Pending Withdraws' }).waitFor();
    await badge(staff).waitFor({ state: 'detached' });
    await staff.context().close();
  }, 90_000);
});
