// The Edit Customer page in real Chromium against the running stack: an admin adds 100 to a
// customer's wallet and the customer's dashboard, open in another browser context and never
// reloaded, shows the new balance (post_ledger's balance_changed → the engine → user:{id}); the
// Tracking tab receives the customer's visit live (track:{id}); a below-zero subtraction is
// refused with its message; a retention agent sees the contact details masked and no buttons.
// axe-core on the page, its tabs and the balance dialog.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const PASSWORD = 'E2e-pass-1234';
const sql = database();
let browser: Browser;

/** A customer with one real USD wallet of `funds` (active) and a phone. */
async function customer(funds: string) {
  const u = await insertUser(sql, { password: PASSWORD, fullName: 'Edit Customer E2E' });
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  await sql`SELECT * FROM post_ledger(${b.id}, ${funds}, 'demo_credit', 'signup', ${String(u.id)})`;
  await sql`UPDATE users SET active_balance_id = ${b.id} WHERE id = ${u.id}`;
  await sql`INSERT INTO profiles (user_id, phone, country, city, address, postal_code) VALUES (${u.id}, '+44 7700 900555', 'United Kingdom', 'London', '1 Street', 'N1')`;
  return { ...u, balanceId: Number(b.id) };
}

async function staffPage(roleId: 1 | 2 | 5 | 6) {
  const staff = await insertUser(sql, { password: PASSWORD, roleId, fullName: 'E2E Staff' });
  const page = await newPage(browser);
  await signIn(page, staff.email, PASSWORD);
  await page.waitForURL((u) => u.pathname.startsWith('/admin'));
  return { page, staff };
}

async function customerPage(email: string): Promise<Page> {
  const page = await newPage(browser);
  await signIn(page, email, PASSWORD);
  await page.waitForURL('**/dashboard');
  return page;
}

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

describe('Edit Customer', () => {
  test('an admin adds 100: the customer\'s open dashboard shows it without a reload', async () => {
    const c = await customer('250');
    const client = await customerPage(c.email);
    const balance = client.getByTestId('summary-balance');
    await expect.poll(() => balance.textContent(), { timeout: 15_000 }).toContain('250.00');
    // the stream is open before the change
    await client.getByText('Live', { exact: true }).waitFor();
    const marker = await client.evaluate(() => { (window as unknown as { __noReload: boolean }).__noReload = true; return true; });
    expect(marker).toBe(true);

    const { page } = await staffPage(1);
    await page.goto(`/admin/customers/edit/${c.id}`);
    await expect.poll(() => page.getByTestId('customer-email').textContent()).toBe(c.email);
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: 'Add to Real USD balance' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Amount').fill('100');
    await dialog.getByLabel('Reason').fill('E2E goodwill');
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'Add' }).click();
    await page.getByText('Balance updated successfully').waitFor();
    await expect.poll(() => page.getByTestId(`wallet-balance-${c.balanceId}`).textContent()).toContain('350.00');
    await expect.poll(() => dialog.count()).toBe(0);

    // live on the customer's page, never reloaded
    await expect.poll(() => balance.textContent(), { timeout: 15_000 }).toContain('350.00');
    expect(await client.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);

    const [e] = await sql`SELECT kind, amount::text AS amount FROM ledger_entries WHERE balance_id = ${c.balanceId} AND ref_kind = 'staff_adjustment'`;
    expect(e).toMatchObject({ kind: 'adjustment', amount: '100.00000000' });

    // below zero: refused under the field, nothing changes
    await page.getByRole('button', { name: 'Subtract from Real USD balance' }).click();
    await dialog.getByLabel('Amount').fill('1000');
    await dialog.getByLabel('Reason').fill('too much');
    await dialog.getByRole('button', { name: 'Subtract' }).click();
    await dialog.getByText('The balance cannot go below zero').waitFor();
    const [b] = await sql`SELECT balance::text AS balance FROM balances WHERE id = ${c.balanceId}`;
    expect(b.balance).toBe('350.00000000');
    await client.context().close();
    await page.context().close();
  });

  test('the Tracking tab receives a visit live', async () => {
    const c = await customer('10');
    const { page } = await staffPage(2);
    await page.goto(`/admin/customers/edit/${c.id}?tab=tracking`);
    await page.getByText('Live', { exact: true }).waitFor();
    await expectNoAxeViolations(page);
    const client = await customerPage(c.email);
    await client.goto('/profile');
    const table = page.locator('table');
    await expect.poll(() => table.textContent(), { timeout: 15_000 }).toContain('/dashboard');
    await expect.poll(() => table.textContent(), { timeout: 15_000 }).toContain('/profile');
    // newest first
    const first = await page.locator('tbody tr').first().textContent();
    expect(first).toContain('/profile');
    for (const tab of ['Trades', 'Deposits', 'Withdraws']) {
      await page.getByRole('link', { name: tab, exact: true }).click();
      await page.waitForURL(`**tab=${tab.toLowerCase()}`);
      await page.getByText('Total:').first().waitFor();
      await expectNoAxeViolations(page);
    }
    await client.context().close();
    await page.context().close();
  });

  test('a retention agent sees email and phone masked, no Submit and no Add or Subtract', async () => {
    const c = await customer('10');
    const { page, staff } = await staffPage(6);
    await sql`INSERT INTO leads (email, user_id, ret_id) VALUES (${c.email}, ${c.id}, ${staff.id})`;
    await page.goto(`/admin/customers/edit/${c.id}`);
    const html = await page.content();
    expect(html).not.toContain(c.email);
    expect(html).not.toContain('7700 900555');
    expect(await page.locator('#customer-phone-masked').inputValue()).toBe('******55');
    expect(await page.getByRole('button', { name: 'Submit' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Add to / }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Subtract from / }).count()).toBe(0);
    // without Submit, nothing in the profile form can be typed into or changed (read-only controls)
    const controls = page.locator('.customer-profile-form').locator('input:not([type=hidden]), select, textarea');
    expect(await controls.count()).toBeGreaterThan(6);
    for (const control of await controls.all()) {
      expect(await control.isEditable(), `${await control.getAttribute('name') ?? await control.getAttribute('id')} is editable`).toBe(false);
    }
    await expectNoAxeViolations(page);
    await page.context().close();
  });
});
