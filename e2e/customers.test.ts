// The customer lists and Admin & Staffs in real Chromium against the running stack: an admin adds
// a customer from the add-user modal (the field errors first), finds them in the list by the
// search box, deletes a customer without money after 'Are you sure to delete this user?'; an
// admin changes a staff user's role in 'Edit user'. axe-core on both pages and their dialogs.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn, uniqueEmail } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const sql = database();
let browser: Browser;

async function admin(): Promise<Page> {
  const page = await newPage(browser);
  await signIn(page, 'admin@demo.broker', 'Demo-1234');
  await page.waitForURL('**/admin');
  return page;
}

const toast = (page: Page, text: string) => page.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

describe('customers', () => {
  test('an admin adds a customer from the modal, sees them in the list, and deletes a customer without money', async () => {
    const page = await admin();
    await page.goto('/admin/customers/all');
    await page.getByRole('heading', { name: 'All Customers' }).waitFor();
    await expectNoAxeViolations(page);

    await page.getByRole('button', { name: 'Add new' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add user' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Role').inputValue()).toBe('3'); // a customer by default on this list
    await expectNoAxeViolations(page);
    const email = uniqueEmail('added');
    await dialog.getByLabel('Full name').fill('Added Customer');
    await dialog.getByLabel('Email', { exact: true }).fill(email);
    await dialog.getByLabel('Password').fill('short');
    await dialog.getByLabel('Password').blur();
    await dialog.getByText('Password must be at least 8 characters').waitFor();
    await dialog.getByLabel('Password').fill('long-enough-1');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'User added successfully').waitFor();
    await dialog.waitFor({ state: 'detached' });

    await page.getByRole('searchbox', { name: 'Search' }).fill(email);
    const row = page.getByRole('row', { name: new RegExp(email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
    await row.waitFor({ timeout: 10_000 }); // the kit's 1.5 s debounce, then the server's page
    const text = await row.textContent();
    expect(text).toContain('Added Customer');
    expect(text).toContain('Active');
    expect(text).toContain('Yes'); // email verified
    expect(await row.getByRole('link', { name: 'Edit Added Customer' }).getAttribute('href')).toMatch(/\/admin\/customers\/edit\/\d+$/);
    const [u] = await sql`SELECT id FROM users WHERE email = ${email}`;
    const wallets = await sql`SELECT mode FROM balances WHERE user_id = ${u.id} ORDER BY mode`;
    expect(wallets.map((w) => w.mode)).toEqual(['demo', 'real']);

    // a customer with no money is deleted after the question
    const poor = await insertUser(sql, { password: 'E2e-pass-1234', fullName: 'Poor Customer' });
    await page.goto(`/admin/customers/all?search=${encodeURIComponent(poor.email)}`);
    await page.getByRole('button', { name: 'Delete Poor Customer' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Poor Customer' });
    await confirm.getByText('Are you sure to delete this user?').waitFor();
    await expectNoAxeViolations(page);
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'Customers deleted successfully').waitFor(); // the spec's words for the customers' lists
    await page.getByText('No data found').waitFor();
    const [gone] = await sql`SELECT deleted_at FROM users WHERE id = ${poor.id}`;
    expect(gone.deleted_at).not.toBeNull();
    await page.context().close();
  });
});

describe('Admin & Staffs', () => {
  test("an admin changes a staff user's role in 'Edit user'", async () => {
    const staff = await insertUser(sql, { password: 'E2e-pass-1234', roleId: 5, fullName: 'Sam Staff', email: uniqueEmail('staff') });
    const page = await admin();
    await page.goto(`/admin/users?search=${encodeURIComponent(staff.email)}`);
    await page.getByRole('heading', { name: 'Admin & Staffs' }).waitFor();
    await expectNoAxeViolations(page);
    const row = page.getByRole('row', { name: /Sam Staff/ });
    expect(await row.textContent()).toContain('Agent');
    await row.getByRole('button', { name: 'Edit Sam Staff' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit user' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Password').inputValue()).toBe('');
    await expectNoAxeViolations(page);
    await dialog.getByLabel('Role').selectOption('6');
    await dialog.getByLabel('IP whitelist').fill('not an address');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await dialog.getByText('Enter IP addresses or CIDR ranges separated by commas, like 203.0.113.5, 10.0.0.0/8').first().waitFor();
    await dialog.getByLabel('IP whitelist').fill('');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'User updated successfully').waitFor();
    await row.getByText('Retention Agent').waitFor();
    const [u] = await sql`SELECT role_id FROM users WHERE id = ${staff.id}`;
    expect(u.role_id).toBe(6);
    await page.context().close();
  });
});
