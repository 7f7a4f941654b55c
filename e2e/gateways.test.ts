// Payment gateways and external payments in Chromium against the running stack
// (docs/specs.md#payment-gateways): the admin edits the Stripe card (fee, a secret key) and sees the
// key masked after the save, never in the page; adds an external payment with a logo, which the
// customer's Deposit tab then offers. axe-core runs on the three admin pages and the deposit page.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';
import { png } from '../web/test/uploads/png.ts';

const PASSWORD = 'E2e-pass-1234';
const sql = database();
let browser: Browser;
let stripeBefore: Record<string, unknown> | undefined;
const externalName = `E2E Wallet ${Date.now().toString(36)}`;

beforeAll(async () => {
  browser = await launch();
  [stripeBefore] = await sql`SELECT key1, key2, fee::text AS fee, is_active FROM payment_gateways WHERE name = 'stripe'`;
});
afterAll(async () => {
  if (stripeBefore) {
    await sql`UPDATE payment_gateways SET key1 = ${stripeBefore.key1 as string}, key2 = ${stripeBefore.key2 as string},
              fee = ${stripeBefore.fee as string}, is_active = ${stripeBefore.is_active as boolean} WHERE name = 'stripe'`;
  }
  await sql`DELETE FROM external_payments WHERE name = ${externalName}`;
  await browser?.close();
  await sql.end();
});

async function admin(): Promise<Page> {
  const u = await insertUser(sql, { password: PASSWORD, roleId: 1, fullName: 'Gail Gateway' });
  const page = await newPage(browser);
  page.setDefaultTimeout(20_000);
  await signIn(page, u.email, PASSWORD);
  await page.waitForURL((url) => url.pathname !== '/');
  return page;
}

describe('gateways', () => {
  test('the admin edits Stripe: the fee and a secret key, masked after the save', async () => {
    const page = await admin();
    await page.goto('/admin/gateways');
    await page.getByRole('heading', { name: 'Automatic Gateways' }).waitFor();
    await expectNoAxeViolations(page);

    const secret = `sk_test_e2e${Date.now().toString(36)}Z9y8`;
    await page.getByRole('button', { name: 'Edit Stripe' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stripe' });
    await dialog.getByLabel('Fee (%)').fill('3.25');
    await dialog.getByLabel('Secret key', { exact: true }).fill(secret);
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Stripe updated successfully').waitFor();
    await dialog.waitFor({ state: 'detached' });

    const card = page.locator('.gateway-card', { has: page.getByRole('heading', { name: 'Stripe' }) });
    await card.getByText('••••Z9y8').waitFor();
    await card.getByText('3.25 %').waitFor();
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await card.getByText('••••Z9y8').waitFor();
    expect(await page.content()).not.toContain(secret);

    const [row] = await sql`SELECT key1, fee::text AS fee FROM payment_gateways WHERE name = 'stripe'`;
    expect(row.fee).toBe('3.2500');
    expect(row.key1).toMatch(/^enc:v1:/);

    // the secret's field starts empty, showing what is stored masked
    await page.getByRole('button', { name: 'Edit Stripe' }).click();
    await expect(page.getByRole('dialog', { name: 'Stripe' }).getByLabel('Secret key', { exact: true }).inputValue()).resolves.toBe('');
    await page.getByRole('dialog', { name: 'Stripe' }).getByText('Stored: ••••Z9y8. Leave empty to keep it.').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.goto('/admin/gateways/manual');
    await page.getByRole('heading', { name: 'Manual Gateways' }).waitFor();
    await expectNoAxeViolations(page);
    await page.close();
  });

  test('an external payment with a logo, offered on the customer\'s Deposit tab', async () => {
    const page = await admin();
    await page.goto('/admin/externalPayments');
    await page.getByRole('heading', { name: 'External payments' }).waitFor();
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: 'Add New' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add External Payment' });
    await dialog.getByLabel('Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from(png(24, 24)) });
    await dialog.getByLabel('Name').fill(externalName);
    await dialog.getByLabel('Link').fill('https://wallet.example.com/pay');
    await dialog.getByLabel('Custom label').fill('Wallet ID');
    await dialog.getByLabel('Custom value').fill('W-1234');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('External payment added successfully').waitFor();
    const logo = page.getByRole('img', { name: externalName });
    await logo.waitFor();
    expect(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(24);
    await expectNoAxeViolations(page);
    await page.close();

    // the customer
    const u = await insertUser(sql, { password: PASSWORD, fullName: 'Ext Payer' });
    const [real] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
    await sql`UPDATE users SET active_balance_id = ${real.id} WHERE id = ${u.id}`;
    const c = await newPage(browser);
    c.setDefaultTimeout(20_000);
    await signIn(c, u.email, PASSWORD);
    await c.waitForURL('**/dashboard');
    await c.goto('/deposits');
    await c.getByRole('heading', { name: 'Deposits' }).waitFor();
    await c.getByLabel('External payment (optional)').selectOption({ label: externalName });
    const shown = c.getByRole('img', { name: externalName });
    await shown.waitFor();
    expect(await shown.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(24);
    await c.getByText('W-1234').waitFor();
    expect(await c.getByRole('link', { name: new RegExp(`Pay with ${externalName}`) }).getAttribute('href')).toBe('https://wallet.example.com/pay');
    await expectNoAxeViolations(c);
    await c.close();
  });
});
