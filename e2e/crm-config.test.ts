// The CRM configuration pages in real Chromium against the running stack: an admin adds a sales
// status and makes it the default; an admin creates a team with a manager and an agent (the
// member picker searched); an affiliate generates a promo code, copies it, and a regenerate
// replaces it. axe-core on the three pages and their dialogs.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

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

async function signedIn(email: string, password: string): Promise<Page> {
  const page = await newPage(browser);
  await signIn(page, email, password);
  await page.waitForURL((u) => u.pathname.startsWith('/admin') || u.pathname.startsWith('/affiliate'));
  return page;
}
const toast = (page: Page, text: string) => page.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });
const suffix = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`.toUpperCase();

describe('sales statuses', () => {
  test('an admin adds a status and makes it the default; the previous default is no longer one', async () => {
    const [before] = await sql`SELECT id, status FROM sales_statuses WHERE is_default`;
    const page = await signedIn('admin@demo.broker', 'Demo-1234');
    await page.goto('/admin/crm-config/sales-statuses');
    await page.getByRole('heading', { name: 'Sales Statuses' }).waitFor();
    await expectNoAxeViolations(page);

    await page.getByRole('button', { name: 'Add New' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add Sales Status' });
    await dialog.waitFor();
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await dialog.getByText('Status is required').waitFor();

    const name = `E2E Hot ${suffix()}`;
    await dialog.getByLabel('Status', { exact: true }).fill(name);
    await dialog.getByLabel('Color').fill('#f0b429');
    await dialog.getByLabel('Is Default').selectOption('true');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Sales status added successfully').waitFor();
    await dialog.waitFor({ state: 'detached' });

    await page.getByRole('searchbox').first().fill(name);
    const row = page.getByRole('row', { name: new RegExp(name) });
    await row.waitFor();
    await expect(row.getByText('Yes', { exact: true }).count()).resolves.toBe(1);
    // the chip's text is black on this light colour
    await expect(row.getByText(name, { exact: true }).evaluate((el) => getComputedStyle(el).color)).resolves.toBe('rgb(0, 0, 0)');
    const defaults = await sql`SELECT status FROM sales_statuses WHERE is_default`;
    expect(defaults.map((d) => d.status)).toEqual([name]);
    await page.screenshot({ path: '/tmp/crm-config-e2e-statuses.png' });

    // the delete dialog of the default explains why it cannot go
    await row.getByRole('button', { name: `Delete ${name}` }).click();
    const del = page.getByRole('dialog', { name: `Delete ${name}` });
    await del.getByText('The default status cannot be deleted. Make another status the default first.').waitFor();
    await expectNoAxeViolations(page);
    await del.getByRole('button', { name: 'Cancel' }).click();

    // put the demo's default back (other tests read the default)
    if (before) {
      await sql.begin(async (tx) => {
        await tx`UPDATE sales_statuses SET is_default = false WHERE is_default`;
        await tx`UPDATE sales_statuses SET is_default = true WHERE id = ${before.id}`;
      });
    }
    await page.close();
  });
});

describe('teams', () => {
  test('an admin creates a team with a manager and an agent picked from the searchable list', async () => {
    const page = await signedIn('admin@demo.broker', 'Demo-1234');
    await page.goto('/admin/crm-config/teams');
    await page.getByRole('heading', { name: 'Teams' }).waitFor();
    await expectNoAxeViolations(page);

    await page.getByRole('button', { name: 'Add New' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add Team' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await dialog.getByText('Name is required').waitFor();
    await dialog.getByText('Manager is required').waitFor();

    const name = `E2E Desk ${suffix()}`;
    await dialog.getByLabel('Name', { exact: true }).fill(name);
    await dialog.getByLabel('Manager', { exact: true }).selectOption({ label: 'Max Manager (manager@demo.broker)' });
    await dialog.getByRole('searchbox', { name: 'Search by name or email' }).fill('sales@demo');
    await dialog.getByRole('checkbox', { name: /Sam Sales/ }).check();
    await dialog.getByRole('searchbox', { name: 'Search by name or email' }).fill('');
    await dialog.getByText('1 selected').waitFor();
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Team added successfully').waitFor();
    await dialog.waitFor({ state: 'detached' });

    const [team] = await sql`SELECT t.id, t.code, m.email AS manager FROM teams t JOIN users m ON m.id = t.manager_id WHERE t.name = ${name}`;
    expect(team.manager).toBe('manager@demo.broker');
    expect(team.code).toMatch(/^TM-[A-Z2-9]{6}$/);
    const members = await sql`SELECT u.email FROM team_members tm JOIN users u ON u.id = tm.user_id WHERE tm.team_id = ${team.id}`;
    expect(members.map((m) => m.email)).toEqual(['sales@demo.broker']);

    await page.getByRole('searchbox').first().fill(name);
    const row = page.getByRole('row', { name: new RegExp(name) });
    await row.getByText(team.code).waitFor();
    await row.getByText('Max Manager').waitFor();
    await row.getByText('Sam Sales').waitFor();
    await page.screenshot({ path: '/tmp/crm-config-e2e-teams.png' });

    await row.getByRole('button', { name: `Delete ${name}` }).click();
    const del = page.getByRole('dialog', { name: `Delete ${name}` });
    await del.getByText('Are you sure to delete this team?').waitFor();
    await del.getByRole('button', { name: 'Yes' }).click();
    await toast(page, 'Team deleted successfully').waitFor();
    expect(await sql`SELECT id FROM teams WHERE name = ${name}`).toHaveLength(0);
    await page.close();
  });
});

describe('promo code', () => {
  test('an affiliate generates a promo code, copies it, and a new one replaces it', async () => {
    const aff = await insertUser(sql, { password: PASSWORD, roleId: 4, fullName: 'E2E Affiliate' });
    const page = await signedIn(aff.email, PASSWORD);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto('/admin/promo-code');
    await page.getByRole('heading', { name: 'Promo Code' }).waitFor();
    const field = page.getByRole('textbox', { name: 'Promo Code' });
    await expect(field.getAttribute('placeholder')).resolves.toBe('Click generate to get promo code');
    await expect(field.inputValue()).resolves.toBe('');
    await expectNoAxeViolations(page);

    await page.getByRole('button', { name: 'Generate' }).click();
    await toast(page, 'Promo code generated successfully').waitFor();
    await page.waitForFunction(() => (document.querySelector('.promo-input') as HTMLInputElement | null)?.value.length === 8);
    const first = await field.inputValue();
    expect(first).toMatch(/^[A-Z2-9]{8}$/);
    const [owned] = await sql`SELECT owner_id FROM promo_codes WHERE code = ${first} AND revoked_at IS NULL`;
    expect(Number(owned.owner_id)).toBe(aff.id);

    await page.getByRole('button', { name: 'Copy promo code' }).click();
    await toast(page, 'Copied to clipboard').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(first);
    await page.screenshot({ path: '/tmp/crm-config-e2e-promo.png' });

    await page.getByRole('button', { name: 'Generate' }).click();
    await page.waitForFunction((old) => {
      const v = (document.querySelector('.promo-input') as HTMLInputElement | null)?.value;
      return !!v && v !== old;
    }, first);
    const second = await field.inputValue();
    const rows = await sql`SELECT code, revoked_at IS NOT NULL AS revoked FROM promo_codes WHERE owner_id = ${aff.id} ORDER BY id`;
    expect(rows.map((r) => [r.code, r.revoked])).toEqual([[first, true], [second, false]]);
    await expectNoAxeViolations(page);
    await page.close();
  });
});
