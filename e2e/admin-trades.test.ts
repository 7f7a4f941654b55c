// The staff trade lists in real Chromium against the running stack: an admin force-closes a
// customer's open trade and the customer's dashboard, open in another browser context and never
// reloaded, shows it closed (the engine's order.closed on user:{id}); an admin edits a trade's
// stop loss in 'Edit Order #id'. axe-core on the lists, the edit modal and the confirmation.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const ENGINE = process.env.E2E_ENGINE_URL ?? 'http://127.0.0.1:4000';
const SYMBOL = 'BTC_USD'; // crypto: its market never closes, so the test runs any day
const PASSWORD = 'E2e-pass-1234';

function engineSecret(): string {
  if (process.env.ENGINE_SECRET) return process.env.ENGINE_SECRET;
  const file = path.resolve(import.meta.dirname, '../.data/secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')).ENGINE_SECRET;
  return 'dev-only-engine-secret-change-me';
}

async function placeOrder(body: unknown) {
  const res = await fetch(`${ENGINE}/v1/orders`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-secret': engineSecret() }, body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== 201) throw new Error(`place: ${res.status} ${JSON.stringify(json)}`);
  return json.order as { id: number; open_rate: string };
}

const sql = database();
let browser: Browser;

/** A customer with one real USD wallet of `funds`, active, KYC approved. */
async function customer(funds: string) {
  const u = await insertUser(sql, { password: PASSWORD });
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  await sql`SELECT * FROM post_ledger(${b.id}, ${funds}, 'demo_credit', 'signup', ${String(u.id)})`;
  await sql`UPDATE users SET active_balance_id = ${b.id} WHERE id = ${u.id}`;
  await sql`INSERT INTO kyc_documents (user_id, type, status, decided_at) VALUES (${u.id}, 'passport', 'approved', now())`;
  return { ...u, balanceId: Number(b.id) };
}

async function staffPage(roleId: 1 | 2) {
  const staff = await insertUser(sql, { password: PASSWORD, roleId, fullName: 'E2E Staff' });
  const page = await newPage(browser);
  await signIn(page, staff.email, PASSWORD);
  await page.waitForURL((u) => u.pathname.startsWith('/admin'));
  return { page, staff };
}

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

describe('admin trades', () => {
  test("an admin force-closes a customer's open trade; the customer's open dashboard shows it closed without a reload", async () => {
    const c = await customer('100000');
    const order = await placeOrder({ userId: c.id, balanceId: c.balanceId, type: 'buy', instrument: SYMBOL, amount: '0.05' });

    // the customer's dashboard, in its own browser context
    const client: Page = await newPage(browser);
    await signIn(client, c.email, PASSWORD);
    await client.waitForURL('**/dashboard');
    await client.getByText('Live', { exact: true }).waitFor(); // the SSE stream is open
    const status = client.getByTestId(`status-${order.id}`);
    await expect.poll(() => status.textContent()).toBe('OPENED');
    await client.evaluate(() => { (window as unknown as { __noReload: boolean }).__noReload = true; });

    // the admin's open trades, filtered to the customer (the filter goes to the URL)
    const { page, staff } = await staffPage(1);
    await page.goto('/admin/trades/open');
    await page.getByRole('heading', { name: 'Open Trades' }).waitFor();
    await page.getByLabel('User', { exact: true }).fill(c.email);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get('user') === c.email);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: c.email }) });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getByRole('cell').first().textContent()).toContain(String(order.id));
    expect(await row.textContent()).toContain('Real · USD');
    expect(await page.getByRole('link', { name: c.email }).getAttribute('href')).toBe(`/admin/customers/edit/${c.id}`);
    await expectNoAxeViolations(page);

    await page.getByRole('button', { name: `Close order #${order.id}` }).click();
    const confirm = page.getByRole('dialog', { name: `Close order #${order.id}` });
    await confirm.getByText('Are you sure to close this trade?').waitFor();
    await expectNoAxeViolations(page);
    await confirm.getByRole('button', { name: 'Close trade' }).click();
    await page.getByText('Order closed successfully').waitFor();
    await confirm.waitFor({ state: 'detached' });
    // it has left the open list
    await expect.poll(() => row.count()).toBe(0);

    // the customer sees it closed live, by staff, without a reload
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toContain('CLOSED');
    expect(await status.textContent()).toContain('Closed by the broker');
    expect(await client.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);

    const [closed] = await sql`SELECT close_reason, closed_by, pro_loss FROM orders WHERE id = ${order.id}`;
    expect(closed).toMatchObject({ close_reason: 'admin', closed_by: String(staff.id) });
    const audits = await sql`SELECT action, actor_id, ip FROM audit_events WHERE target_kind = 'order' AND target_id = ${String(order.id)}`;
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ action: 'order.force_close', actor_id: String(staff.id) });
    expect(audits[0].ip).not.toBeNull();
    // the closed list has it, with its realised P/L
    await page.goto(`/admin/trades/closed?user=${encodeURIComponent(c.email)}`);
    await page.getByRole('row').filter({ hasText: 'Closed' }).filter({ has: page.getByRole('link', { name: c.email }) }).waitFor();
    await expectNoAxeViolations(page);
    await client.context().close();
    await page.context().close();
  });

  test("an admin edits an open trade's stop loss in 'Edit Order #id'", async () => {
    const c = await customer('100000');
    const order = await placeOrder({ userId: c.id, balanceId: c.balanceId, type: 'buy', instrument: SYMBOL, amount: '0.05' });
    const sl = Math.round(Number(order.open_rate) * 0.8 * 100) / 100;

    const { page, staff } = await staffPage(1);
    await page.goto(`/admin/trades/all?user=${c.id}`);
    await page.getByRole('heading', { name: 'All Trades' }).waitFor();
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: `Edit order #${order.id}` }).click();
    const dialog = page.getByRole('dialog', { name: `Edit Order #${order.id}` });
    await dialog.waitFor();
    // an open trade: the close rate cannot be edited, and the dialog says why
    expect(await dialog.getByLabel('Close Rate').isDisabled()).toBe(true);
    await dialog.getByText('Open trades cannot have the close rate edited.').waitFor();
    await dialog.getByText(/the difference is posted to the wallet through the ledger as a correcting entry/).waitFor();
    expect(await dialog.getByLabel('Open Time (UTC)').inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    await expectNoAxeViolations(page);

    // a bad value is named under its field and nothing is sent
    await dialog.getByLabel('Stop Loss').fill('-5');
    await dialog.getByLabel('Spread').focus();
    await dialog.getByText('Stop loss cannot be negative').waitFor();
    await dialog.getByLabel('Stop Loss').fill(String(sl));
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Order updated successfully').waitFor();
    await dialog.waitFor({ state: 'detached' });
    // the list shows the new level (2 digits for BTC/USD, English separators)
    const row = page.getByRole('row').filter({ has: page.getByRole('button', { name: `Edit order #${order.id}` }) });
    await expect.poll(() => row.textContent()).toContain(sl.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));

    const [edited] = await sql`SELECT loss::float8 AS loss, open_rate::text AS open_rate, close_time FROM orders WHERE id = ${order.id}`;
    expect(edited.loss).toBeCloseTo(sl, 2);
    expect(edited.close_time).toBeNull();
    const [audit] = await sql`SELECT actor_id, before, after FROM audit_events WHERE action = 'order.edit' AND target_id = ${String(order.id)}`;
    expect(audit.actor_id).toBe(String(staff.id));
    expect(audit.before.loss).toBeNull();
    expect(Number(audit.after.loss)).toBeCloseTo(sl, 2);
    expect(audit.after.open_rate).toBe(audit.before.open_rate);
    await page.context().close();
  });
});
