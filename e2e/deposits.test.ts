// Deposits in real Chromium against the running stack (docs/specs.md#money): a customer makes a
// bank deposit with a proof file and lands on the pending modal; an admin approves it on
// /admin/deposits in a second browser; the customer's dashboard, open from before and never
// reloaded, shows the new balance and the notification. Then a crypto deposit (QR, copy, Confirm)
// declined with a reason that the customer's history shows. A German customer types '12,50'
// (docs/specs.md#number-input). axe-core runs on every page touched.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BASE_URL, database, insertUser, launch, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';
import { png } from '../web/test/uploads/png.ts';

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

/** A customer with one real USD wallet of 1,000 (the active one), and a demo wallet. */
async function customer() {
  const u = await insertUser(sql, { password: PASSWORD, fullName: 'Dora Depositor' });
  const [real] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'demo', 'USD')`;
  await sql`SELECT * FROM post_ledger(${real.id}, 1000, 'adjustment', 'e2e', ${`fund-${real.id}`})`;
  await sql`UPDATE users SET active_balance_id = ${real.id} WHERE id = ${u.id}`;
  return { ...u, wallet: Number(real.id) };
}

async function context(): Promise<BrowserContext> {
  const ctx = await browser.newContext({ baseURL: BASE_URL, viewport: { width: 1280, height: 860 }, locale: 'en-US' });
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
  return ctx;
}
async function open(ctx: BrowserContext): Promise<Page> {
  const page = await ctx.newPage();
  page.setDefaultTimeout(20_000);
  return page;
}

/** The Deposit tab: wallet (the only one is chosen), gateway, amount; the live summary; submit. */
async function startDeposit(page: Page, gateway: string, amount: string) {
  await page.goto('/deposits');
  await page.getByRole('heading', { name: 'Deposits' }).waitFor();
  await page.getByLabel('Gateway').selectOption(gateway);
  await page.getByLabel(/^Amount/).fill(amount);
}

describe('deposits', () => {
  test('bank deposit with a proof → pending modal → approved by an admin → the open dashboard shows the new balance and the notification', async () => {
    const c = await customer();
    const customerCtx = await context();
    const dashboard = await open(customerCtx);
    await signIn(dashboard, c.email, PASSWORD);
    await dashboard.waitForURL('**/dashboard');
    await dashboard.getByText('Live', { exact: true }).waitFor(); // its stream is open
    await dashboard.evaluate(() => { (window as unknown as { __noReload: boolean }).__noReload = true; });
    await expect.poll(() => dashboard.getByTestId('summary-balance').textContent()).toBe('$1,000.00');

    // the deposit, in another tab of the same browser
    const page = await open(customerCtx);
    await startDeposit(page, 'bank', '250');
    const summary = page.locator('.money-summary');
    await expect.poll(() => summary.textContent()).toContain('$250.00');
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: 'Deposit', exact: true }).click();
    await page.waitForURL(`**/deposits/bank/${c.wallet}?amount=250.00`);
    await page.getByRole('heading', { name: 'Bank Deposit' }).waitFor();
    expect(await page.getByLabel('Account name').inputValue()).toBe('Dora Depositor');
    expect(await page.getByLabel('Account name').getAttribute('readonly')).not.toBeNull();
    await expectNoAxeViolations(page);

    // nothing chosen yet: the form says what is missing, and nothing is sent
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Bank name is required').waitFor();
    await page.getByText('Proof is required').waitFor();
    expect(page.url()).toContain(`/deposits/bank/${c.wallet}`);

    await page.getByLabel('Bank name').fill('First Bank of E2E');
    await page.getByLabel('Account number').fill('DE89370400440532013000');
    await page.getByLabel('Proof').setInputFiles({ name: 'transfer.png', mimeType: 'image/png', buffer: Buffer.from(png(8, 8)) });
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.waitForURL('**/deposits?status=pending&amount=250.00&currency=USD');
    const modal = page.getByRole('dialog', { name: 'Deposit Submitted' });
    await modal.getByText('Your deposit of $250.00 was submitted and is waiting for approval.').waitFor();
    await expectNoAxeViolations(page);
    await modal.getByRole('button', { name: 'OK' }).click();
    await modal.waitFor({ state: 'detached' });
    expect(new URL(page.url()).search).toBe('');

    const [deposit] = await sql`SELECT id, status, details FROM deposits WHERE user_id = ${c.id}`;
    expect(deposit.status).toBe('pending');
    expect(deposit.details).toMatchObject({ bankName: 'First Bank of E2E', accountName: 'Dora Depositor', accountNumber: 'DE89370400440532013000' });
    const [proof] = await sql`SELECT kind, mime, owner_id FROM uploads WHERE id = ${deposit.details.proofUploadId}`;
    expect({ ...proof, owner_id: Number(proof.owner_id) }).toMatchObject({ kind: 'deposit_proof', mime: 'image/png', owner_id: c.id });

    // History: the pending deposit
    await page.getByRole('link', { name: 'History' }).click();
    await page.waitForURL('**/deposits?tab=history');
    const mine = page.getByRole('row').filter({ hasText: String(deposit.id) }).first();
    await mine.getByText('Pending').waitFor();
    await expectNoAxeViolations(page);

    // an admin approves it, in another browser
    const adminCtx = await context();
    const admin = await open(adminCtx);
    await signIn(admin, 'admin@demo.broker', 'Demo-1234');
    await admin.waitForURL((u) => u.pathname !== '/');
    await admin.goto(`/admin/deposits?search=${encodeURIComponent(c.email)}`);
    const row = admin.getByRole('row').filter({ hasText: c.email });
    await row.getByText('First Bank of E2E').waitFor();
    // the proof is served to staff through the upload route
    const proofHref = await row.getByRole('link', { name: /Proof/ }).getAttribute('href');
    expect(proofHref).toBe(`/uploads/${deposit.details.proofUploadId}`);
    expect((await admin.request.get(proofHref!)).headers()['content-type']).toBe('image/png');
    await expectNoAxeViolations(admin);
    await row.getByRole('button', { name: `Approve deposit #${deposit.id}` }).click();
    const confirm = admin.getByRole('dialog', { name: 'Approve deposit' });
    // the question restates the deposit, its amount and whose it is
    await confirm.getByText(new RegExp(`^Approve deposit #${deposit.id} of .+ for ${c.email.replace(/[.+]/g, '\\$&')}\\?$`)).waitFor();
    await expectNoAxeViolations(admin);
    await confirm.getByRole('button', { name: 'Approve' }).click();
    await admin.getByText('Deposit approved successfully').waitFor();
    await row.getByText('Approved').waitFor();
    expect(await row.getByRole('button').count()).toBe(0);

    // the customer's dashboard, never reloaded: the balance and the notification, live
    await dashboard.getByRole('status').filter({ hasText: `Deposit #${deposit.id} approved` }).waitFor();
    await expect.poll(() => dashboard.getByTestId('summary-balance').textContent(), { timeout: 15_000 }).toBe('$1,250.00');
    expect(await dashboard.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('1250.00000000');

    await adminCtx.close();
    await customerCtx.close();
  }, 180_000);

  test('crypto deposit: QR and address to copy, Confirm → pending; declined with a reason the history shows', async () => {
    const c = await customer();
    const ctx = await context();
    const page = await open(ctx);
    await signIn(page, c.email, PASSWORD);
    await page.waitForURL('**/dashboard');
    await startDeposit(page, 'btc', '100');
    await page.getByRole('button', { name: 'Deposit', exact: true }).click();
    await page.waitForURL(`**/deposits/crypto/btc?balance=${c.wallet}&amount=100.00`);
    await page.getByRole('heading', { name: 'Bitcoin' }).waitFor();
    const qr = page.getByRole('img', { name: 'QR code of the Bitcoin wallet address' });
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const address = await page.getByLabel('Wallet address').inputValue();
    expect(address).toMatch(/^\S{20,}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to clipboard').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(address);
    // the total in BTC at the engine's rate, or a clear word that there is none
    await page.locator('.crypto-quote').getByText(/BTC|Rate unavailable/).first().waitFor();
    await expectNoAxeViolations(page);
    // the transfer's hash, as the customer's wallet shows it (one deposit per transfer)
    const hash = randomBytes(32).toString('hex');
    await page.getByLabel('Transaction hash').fill(hash);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL('**/deposits?status=pending&amount=100.00&currency=USD');
    await page.getByRole('dialog', { name: 'Deposit Submitted' }).waitFor();

    const [deposit] = await sql`SELECT id, status, gateway, details, reference FROM deposits WHERE user_id = ${c.id}`;
    expect(deposit).toMatchObject({ status: 'pending', gateway: 'btc', reference: hash });
    expect(deposit.details.walletAddress).toBe(address);

    // declined by a manager, with a reason
    const staffCtx = await context();
    const manager = await open(staffCtx);
    await signIn(manager, 'manager@demo.broker', 'Demo-1234');
    await manager.waitForURL((u) => u.pathname !== '/');
    await manager.goto(`/admin/deposits?search=${deposit.id}&status=pending`);
    const row = manager.getByRole('row').filter({ hasText: c.email });
    await row.getByRole('button', { name: `Decline deposit #${deposit.id}` }).click();
    const dialog = manager.getByRole('dialog', { name: 'Decline deposit' });
    await dialog.getByLabel('Decline reason (optional)').fill('No transfer arrived at the address');
    await expectNoAxeViolations(manager);
    await dialog.getByRole('button', { name: 'Decline' }).click();
    await manager.getByText('Withdraw declined successfully').waitFor();
    await staffCtx.close();

    await page.getByRole('status').filter({ hasText: `Deposit #${deposit.id} declined` }).waitFor(); // the live notification toast
    await page.goto('/deposits?tab=history');
    const mine = page.getByRole('row').filter({ hasText: String(deposit.id) }).first();
    await mine.getByText('Declined').waitFor();
    await mine.getByText('Reason: No transfer arrived at the address').waitFor();
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('1000.00000000');
    await ctx.close();
  }, 180_000);

  test('German: the amount is typed as the page writes numbers (\'12,50\'); \'12.5\' is refused with the German example; the deposit is 12.50 exactly', async () => {
    const c = await customer();
    const ctx = await context();
    const page = await open(ctx);
    await signIn(page, c.email, PASSWORD);
    await page.waitForURL('**/dashboard');
    await ctx.addCookies([{ name: 'lang', value: 'de', url: BASE_URL }]);
    await page.goto('/deposits');
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('de');
    await page.waitForLoadState('networkidle'); // hydrated: the form validates in the browser
    await page.getByLabel('Zahlungsweg').selectOption('bank');
    const amount = page.getByLabel(/^Betrag/);
    // the English way is not read in German (docs/specs.md#number-input): the message shows the German example
    await amount.fill('12.5');
    await amount.press('Tab');
    await page.getByText('Der Betrag muss eine Zahl wie 12,5 sein').waitFor();
    await amount.fill('12,50');
    await page.getByText('Der Betrag muss eine Zahl wie 12,5 sein').waitFor({ state: 'detached' });
    await expect.poll(() => page.locator('.money-summary').textContent()).toContain('12,50\u00a0$');
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: 'Einzahlen', exact: true }).click();
    await page.waitForURL(`**/deposits/bank/${c.wallet}?amount=12.50`);
    await page.getByLabel('Name der Bank').fill('Erste E2E-Bank');
    await page.locator('input[name="account_number"]').fill('DE89370400440532013000');
    await page.locator('input[name="proof"]').setInputFiles({ name: 'beleg.png', mimeType: 'image/png', buffer: Buffer.from(png(8, 8)) });
    await page.getByRole('button', { name: 'Absenden' }).click();
    await page.waitForURL('**/deposits?status=pending&amount=12.50&currency=USD');
    const [deposit] = await sql`SELECT amount::text AS amount, status FROM deposits WHERE user_id = ${c.id}`;
    expect(deposit).toEqual({ amount: '12.50', status: 'pending' });
    await ctx.close();
  }, 120_000);

  test('bad input on the deposit pages is a message, never a 500', async () => {
    const c = await customer();
    const other = await customer();
    const ctx = await context();
    const page = await open(ctx);
    await signIn(page, c.email, PASSWORD);
    await page.waitForURL('**/dashboard');
    for (const [path, status] of [
      [`/deposits/bank/${other.wallet}?amount=10`, 404], [`/deposits/bank/${c.wallet}?amount=abc`, 400],
      [`/deposits/crypto/eth?balance=${c.wallet}&amount=10`, 404], [`/deposits/crypto/usdt?balance=${other.wallet}&amount=10`, 404],
      ['/deposits?tab=history&dateStart=2024-02-30', 400], ['/deposits?tab=history&page=abc', 200],
    ] as const) {
      const res = await page.goto(path);
      expect(res?.status(), path).toBe(status);
    }
    await page.goto(`/deposits/bank/${c.wallet}?amount=abc`);
    await page.getByText('Amount must be a number like 12.5').waitFor();
    await expectNoAxeViolations(page);
    // the form: an amount touched and left empty says so
    await page.goto('/deposits');
    await page.waitForLoadState('networkidle'); // hydrated: the form validates in the browser
    await page.getByLabel(/^Amount/).click();
    await page.keyboard.press('Tab');
    await page.getByText('Amount is required').waitFor();
    await ctx.close();
  }, 120_000);
});
