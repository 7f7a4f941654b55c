// Card and wallet deposits in real Chromium against the stack started with MOCKS=1 (scripts/test.ts):
// the providers are the msw mocks of web/test/mocks/payments.ts and their checkout pages. A customer
// deposits 100 USD by Stripe (the mock Checkout pays and sends the signed webhook) and by PayPal
// (the wallet payment page, approval, capture), sees 'Deposit Successful' and the new balance; an
// admin sees each deposit approved with its payment events. axe-core on every page of ours.
// SCREENSHOT_DIR=… also saves the pages at 1440 and 390 px.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BASE_URL, database, insertUser, launch, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const PASSWORD = 'E2e-pass-1234';
const sql = database();
let browser: Browser;
let before: Record<string, unknown>[] = [];

beforeAll(async () => {
  browser = await launch();
  before = await sql`SELECT name::text AS name, key1, key2, key3, key4, fee::text AS fee, is_active FROM payment_gateways WHERE name IN ('stripe', 'paypal')`;
  // the mocks' keys (the stack fills empty ones under MOCKS=1; set here too, whichever runs first)
  await sql`UPDATE payment_gateways SET key1 = coalesce(nullif(key1, ''), 'sk_test_mock0000000000000000'),
              key2 = coalesce(nullif(key2, ''), 'whsec_mock00000000000000000000'), is_active = true WHERE name = 'stripe'`;
  await sql`UPDATE payment_gateways SET key1 = 'mock-client-id', key2 = 'mock-client-secret', key3 = 'sandbox', key4 = 'MOCKWEBHOOK0001', is_active = true WHERE name = 'paypal'`;
});
afterAll(async () => {
  for (const g of before) {
    await sql`UPDATE payment_gateways SET key1 = ${g.key1 as string | null}, key2 = ${g.key2 as string | null}, key3 = ${g.key3 as string | null},
                key4 = ${g.key4 as string | null}, fee = ${g.fee as string}, is_active = ${g.is_active as boolean} WHERE name::text = ${g.name as string}`;
  }
  await browser?.close();
  await sql.end();
});

async function customer() {
  const u = await insertUser(sql, { password: PASSWORD, fullName: 'Carla Card' });
  const [real] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  await sql`SELECT * FROM post_ledger(${real.id}, 1000, 'adjustment', 'e2e', ${`fund-${real.id}`})`;
  await sql`UPDATE users SET active_balance_id = ${real.id} WHERE id = ${u.id}`;
  return { ...u, wallet: Number(real.id) };
}

async function context(): Promise<BrowserContext> {
  return browser.newContext({ baseURL: BASE_URL, viewport: { width: 1440, height: 900 }, locale: 'en-US' });
}
async function open(ctx: BrowserContext): Promise<Page> {
  const page = await ctx.newPage();
  page.setDefaultTimeout(20_000);
  return page;
}

/** Saves the page at 1440 and 390 px wide when SCREENSHOT_DIR is set. */
async function shoot(page: Page, name: string) {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${dir}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

async function deposit(page: Page, gateway: string, amount: string) {
  await page.goto('/deposits');
  await page.getByRole('heading', { name: 'Deposits' }).waitFor();
  await page.getByLabel('Gateway').selectOption(gateway);
  await page.getByLabel(/^Amount/).fill(amount);
  await page.getByRole('button', { name: 'Deposit', exact: true }).click();
}

async function expectSuccess(page: Page) {
  await page.waitForURL('**/deposits?status=success&amount=100.00&currency=USD');
  const modal = page.getByRole('dialog', { name: 'Deposit Successful' });
  await modal.getByText('$100.00 was added to your account.').waitFor();
  await expectNoAxeViolations(page);
  return modal;
}

async function adminSeesEvents(depositId: number, shot?: string) {
  const ctx = await context();
  const admin = await open(ctx);
  await signIn(admin, 'admin@demo.broker', 'Demo-1234');
  await admin.waitForURL((u) => u.pathname !== '/');
  await admin.goto(`/admin/deposits?search=${depositId}`);
  const row = admin.getByRole('row').filter({ has: admin.getByRole('button', { name: `Payment events of deposit #${depositId}` }) });
  await row.getByText('Approved').waitFor();
  await expectNoAxeViolations(admin);
  await row.getByRole('button', { name: `Payment events of deposit #${depositId}` }).click();
  const dialog = admin.getByRole('dialog', { name: `Payment events of deposit #${depositId}` });
  await dialog.getByText('Applied').first().waitFor();
  await expectNoAxeViolations(admin);
  if (shot) await shoot(admin, shot);
  await ctx.close();
}

describe('card and wallet deposits (MOCKS=1)', () => {
  test('Stripe: 100 USD through the mock Checkout → signed webhook → Deposit Successful, the new balance; the admin sees it approved with its events', async () => {
    const c = await customer();
    const ctx = await context();
    const page = await open(ctx);
    await signIn(page, c.email, PASSWORD);
    await page.waitForURL((u) => u.pathname !== '/');
    await deposit(page, 'stripe', '100');
    await page.waitForURL('**/payments/mock/stripe/cs_test_*');
    // 100 + Stripe's 2.9 % fee, charged in cents
    await page.getByRole('heading', { name: 'Stripe Checkout (mock)' }).waitFor();
    await page.getByText('102.90 USD').first().waitFor();
    await shoot(page, 'stripe-mock-checkout');
    await page.getByRole('button', { name: 'Pay 102.90 USD' }).click();
    const modal = await expectSuccess(page);
    await shoot(page, 'stripe-deposit-successful');
    await modal.getByRole('button', { name: 'OK' }).click();

    const [d] = await sql`SELECT id, status, reference FROM deposits WHERE user_id = ${c.id}`;
    expect(d.status).toBe('approved');
    expect(d.reference).toMatch(/^cs_test_/);
    expect((await sql`SELECT count(*)::int AS n FROM ledger_entries WHERE ref_kind = 'deposit' AND ref_id = ${String(d.id)}`)[0].n).toBe(1);
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('1100.00000000');
    const events = await sql`SELECT kind, outcome FROM payment_events WHERE deposit_id = ${d.id} ORDER BY id`;
    expect(events.map((e) => e.outcome)).toContain('applied');

    // the new balance where the customer looks for it
    await page.goto('/dashboard');
    await expect.poll(() => page.getByTestId('summary-balance').textContent(), { timeout: 15_000 }).toBe('$1,100.00');
    await page.goto('/deposits?tab=history');
    await page.getByRole('row').filter({ hasText: String(d.id) }).first().getByText('Approved').waitFor();
    await expectNoAxeViolations(page);
    await ctx.close();

    await adminSeesEvents(Number(d.id), 'admin-deposit-events');
  }, 180_000);

  test('PayPal: the wallet payment page → approval → capture → Deposit Successful; the admin sees it approved', async () => {
    const c = await customer();
    await sql`UPDATE payment_gateways SET fee = 0 WHERE name = 'paypal'`;
    const ctx = await context();
    const page = await open(ctx);
    await signIn(page, c.email, PASSWORD);
    await page.waitForURL((u) => u.pathname !== '/');
    await deposit(page, 'paypal', '100');
    await page.waitForURL('**/deposits/paypal/*');
    await page.getByRole('heading', { name: 'Wallet Payment' }).waitFor();
    await page.getByText('$100.00').first().waitFor();
    await expectNoAxeViolations(page);
    await shoot(page, 'paypal-wallet-page');
    await page.getByRole('button', { name: 'Pay with PayPal' }).click();
    await page.waitForURL('**/payments/mock/paypal/*');
    await page.getByRole('button', { name: 'Pay 100.00 USD' }).click();
    await expectSuccess(page);

    const [d] = await sql`SELECT id, status FROM deposits WHERE user_id = ${c.id}`;
    expect(d.status).toBe('approved');
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('1100.00000000');
    // the mock PayPal's signed PAYMENT.CAPTURE.COMPLETED arrives after the capture: verified, no second credit
    await expect.poll(async () => (await sql`SELECT count(*)::int AS n FROM payment_events WHERE deposit_id = ${d.id}`)[0].n, { timeout: 10_000 }).toBe(2);
    expect((await sql`SELECT count(*)::int AS n FROM ledger_entries WHERE ref_kind = 'deposit' AND ref_id = ${String(d.id)}`)[0].n).toBe(1);
    await ctx.close();

    await adminSeesEvents(Number(d.id));
  }, 180_000);
});
