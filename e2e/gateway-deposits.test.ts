// Deposits through CoinPayments, Flutterwave, MoonPay, Wipays and Perfect Money in real Chromium
// against the stack started with MOCKS=1 (scripts/test.ts): the providers' APIs are the msw mocks of
// web/test/mocks/providers/, their hosted checkouts the app's mock pages (web/test/mocks/checkouts.ts),
// which send each provider's documented, signed notification to the webhook. One customer (signed in
// once) deposits 100 USD by each, sees 'Deposit Successful' and the new balance; one admin sees each
// deposit approved with its payment events. Perfect Money's SCI form goes through the start page
// /deposits/start/:depositId (auto-submitted; its button without JavaScript): axe-core, its 404s.
// SCREENSHOT_DIR=… also saves the start page and a mock checkout at 1440 and 390 px.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BASE_URL, database, insertUser, launch, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const PASSWORD = 'E2e-pass-1234';
const sql = database();

/** Each gateway: the mocks' keys (web/test/mocks/payments.ts MOCK_KEYS), its fee, its mock checkout. */
const GATEWAYS = [
  { name: 'coinpayments', keys: ['cp-public-test', 'cp-private-test', 'BTC', null, null], fee: '1', total: '101.00', page: 'CoinPayments (mock)', ref: /^CPMOCK\d+$/ },
  { name: 'flutterwave', keys: ['FLWPUBK_TEST-mock-X', 'FLWSECK_TEST-mock-X', 'mock-flw-secret-hash', null, null], fee: '2.9', total: '102.90', page: 'Flutterwave (mock)', ref: /^dep-\d+$/ },
  {
    name: 'moonpay', keys: ['pk_test_mock', 'sk_test_mock_moonpay', 'wk_test_mock_moonpay', '0xc216eD2D6c295579718dbd4a797845CdA70B3C36', 'usdc'],
    fee: '4.5', total: '104.50', page: 'MoonPay (mock)', ref: /^dep-\d+$/,
  },
  { name: 'wipays', keys: ['wp-public-test', 'wp-secret-test', null, null, null], fee: '2', total: '102.00', page: 'Wipays (mock)', ref: /^dep-\d+$/ },
  { name: 'perfectmoney', keys: ['U1234567', 'E1234567', 'mock-alternate-passphrase', null, null], fee: '1.5', total: '101.50', page: 'Perfect Money (mock)', ref: /^dep-\d+$/ },
] as const;

let browser: Browser;
let before: Record<string, unknown>[] = [];
let customer: { id: number; email: string; wallet: number };
let ctx: BrowserContext;
let page: Page;
let admin: Page;
const approved: Record<string, number> = {};

beforeAll(async () => {
  browser = await launch();
  const names = GATEWAYS.map((g) => g.name);
  before = await sql`SELECT name::text AS name, key1, key2, key3, key4, key5, fee::text AS fee, is_active FROM payment_gateways WHERE name::text IN ${sql(names)}`;
  for (const g of GATEWAYS) {
    await sql`UPDATE payment_gateways SET key1 = ${g.keys[0]}, key2 = ${g.keys[1]}, key3 = ${g.keys[2]}, key4 = ${g.keys[3]}, key5 = ${g.keys[4]},
                fee = ${g.fee}, is_active = true WHERE name::text = ${g.name}`;
  }
  const u = await insertUser(sql, { password: PASSWORD, fullName: 'Gina Gateway' });
  const [real] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  await sql`SELECT * FROM post_ledger(${real.id}, 1000, 'adjustment', 'e2e', ${`fund-${real.id}`})`;
  await sql`UPDATE users SET active_balance_id = ${real.id} WHERE id = ${u.id}`;
  customer = { ...u, wallet: Number(real.id) };
  // one sign-in each for the whole file
  ctx = await browser.newContext({ baseURL: BASE_URL, viewport: { width: 1440, height: 900 }, locale: 'en-US' });
  page = await ctx.newPage();
  page.setDefaultTimeout(20_000);
  await signIn(page, customer.email, PASSWORD);
  await page.waitForURL((url) => url.pathname !== '/');
  const adminCtx = await browser.newContext({ baseURL: BASE_URL, viewport: { width: 1440, height: 900 }, locale: 'en-US' });
  admin = await adminCtx.newPage();
  admin.setDefaultTimeout(20_000);
  await signIn(admin, 'admin@demo.broker', 'Demo-1234');
  await admin.waitForURL((url) => url.pathname !== '/');
}, 120_000);

afterAll(async () => {
  for (const g of before) {
    await sql`UPDATE payment_gateways SET key1 = ${g.key1 as string | null}, key2 = ${g.key2 as string | null}, key3 = ${g.key3 as string | null},
                key4 = ${g.key4 as string | null}, key5 = ${g.key5 as string | null}, fee = ${g.fee as string}, is_active = ${g.is_active as boolean}
              WHERE name::text = ${g.name as string}`;
  }
  await browser?.close();
  await sql.end();
});

/** Saves the page at 1440 and 390 px wide when SCREENSHOT_DIR is set. */
async function shoot(p: Page, name: string) {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  for (const width of [1440, 390]) {
    await p.setViewportSize({ width, height: 900 });
    await p.screenshot({ path: `${dir}/${name}-${width}.png`, fullPage: true });
  }
  await p.setViewportSize({ width: 1440, height: 900 });
}

async function deposit(p: Page, gateway: string) {
  await p.goto('/deposits');
  await p.getByRole('heading', { name: 'Deposits' }).waitFor();
  await p.getByLabel('Gateway').selectOption(gateway);
  await p.getByLabel(/^Amount/).fill('100');
  await p.getByRole('button', { name: 'Deposit', exact: true }).click();
}

const latestDeposit = async (gateway: string) =>
  (await sql`SELECT id, status, reference FROM deposits WHERE user_id = ${customer.id} AND gateway = ${gateway} ORDER BY id DESC LIMIT 1`)[0];

describe('gateway deposits through the mock checkouts (MOCKS=1)', () => {
  let paid = 0;
  for (const g of GATEWAYS) {
    test(`${g.name}: 100 USD through the mock checkout → signed notification → Deposit Successful and the new balance`, async () => {
      await deposit(page, g.name);
      // Perfect Money passes through the start page, which posts the SCI form by itself
      await page.waitForURL(`**/payments/mock/${g.name}/**`);
      await page.getByRole('heading', { name: g.page }).waitFor();
      await page.getByRole('button', { name: `Pay ${g.total} USD` }).click();
      await page.waitForURL('**/deposits?status=success&amount=100.00&currency=USD');
      await page.getByRole('dialog', { name: 'Deposit Successful' }).getByText('$100.00 was added to your account.').waitFor();
      paid += 1;

      const d = await latestDeposit(g.name);
      expect(d.status).toBe('approved');
      expect(d.reference).toMatch(g.ref);
      approved[g.name] = Number(d.id);
      expect((await sql`SELECT count(*)::int AS n FROM ledger_entries WHERE ref_kind = 'deposit' AND ref_id = ${String(d.id)}`)[0].n).toBe(1);
      const events = await sql`SELECT kind, outcome FROM payment_events WHERE deposit_id = ${d.id} ORDER BY id`;
      expect(events).toContainEqual(expect.objectContaining({ kind: 'webhook', outcome: 'applied' }));
      const balance = `${1000 + 100 * paid}.00`;
      expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${customer.wallet}`)[0].b).toBe(`${balance}000000`);
      await page.goto('/dashboard');
      await expect.poll(() => page.getByTestId('summary-balance').textContent(), { timeout: 15_000 }).toBe(`$${Number(balance).toLocaleString('en-US', { minimumFractionDigits: 2 })}`);
    }, 60_000);
  }

  test('the admin sees each deposit approved with its payment events', async () => {
    let first = true;
    for (const g of GATEWAYS) {
      const id = approved[g.name];
      expect(id, g.name).toBeDefined();
      await admin.goto(`/admin/deposits?search=${id}`);
      const events = admin.getByRole('button', { name: `Payment events of deposit #${id}` });
      await admin.getByRole('row').filter({ has: events }).getByText('Approved').waitFor();
      await events.click();
      const dialog = admin.getByRole('dialog', { name: `Payment events of deposit #${id}` });
      await dialog.getByText('Applied').first().waitFor();
      if (first) await expectNoAxeViolations(admin);
      first = false;
    }
  }, 60_000);

  test("the start page: the SCI form's public fields only, axe, the button without auto-submit; 404 for others' ids, decided deposits and bad ids", async () => {
    const held = await ctx.newPage();
    held.setDefaultTimeout(20_000);
    // the auto-submit is held here (form.submit() recorded, not sent) so the page can be looked at
    await held.addInitScript(() => {
      HTMLFormElement.prototype.submit = function hold(this: HTMLFormElement) { (window as unknown as { held: string }).held = this.action; };
    });
    await deposit(held, 'perfectmoney');
    await held.waitForURL('**/deposits/start/*');
    await held.getByRole('heading', { name: 'Continue to payment' }).waitFor();
    await expect.poll(() => held.evaluate(() => (window as unknown as { held?: string }).held)).toMatch(/\/payments\/mock\/perfectmoney\/sci$/);
    const fields = await held.locator('form[action$="/payments/mock/perfectmoney/sci"] input[type="hidden"]').evaluateAll((els) => Object.fromEntries(els.map((e) => [(e as HTMLInputElement).name, (e as HTMLInputElement).value])));
    const d = await latestDeposit('perfectmoney');
    expect(fields).toMatchObject({ PAYEE_ACCOUNT: 'U1234567', PAYMENT_AMOUNT: '101.50', PAYMENT_UNITS: 'USD', PAYMENT_ID: `dep-${d.id}` });
    expect(fields.STATUS_URL).toMatch(/\/payments\/webhooks\/perfectmoney$/);
    expect(Object.values(fields).join(' ')).not.toContain('mock-alternate-passphrase');
    expect(Object.keys(fields).sort()).toEqual(['BAGGAGE_FIELDS', 'NOPAYMENT_URL', 'NOPAYMENT_URL_METHOD', 'PAYEE_ACCOUNT', 'PAYEE_NAME', 'PAYMENT_AMOUNT', 'PAYMENT_ID',
      'PAYMENT_UNITS', 'PAYMENT_URL', 'PAYMENT_URL_METHOD', 'STATUS_URL', 'SUGGESTED_MEMO']);
    await expectNoAxeViolations(held);
    await shoot(held, 'payment-start-page');

    // the button posts the form (what a browser without JavaScript does)
    await held.getByRole('button', { name: 'Continue to Perfect Money' }).click();
    await held.waitForURL('**/payments/mock/perfectmoney/pm*');
    await held.getByRole('heading', { name: 'Perfect Money (mock)' }).waitFor();
    await shoot(held, 'perfectmoney-mock-checkout');
    await held.getByRole('button', { name: 'Cancel' }).click();
    await held.waitForURL('**/deposits?status=failed**');
    // cancelled at the provider: still pending (no notification came), its start page still there
    expect((await latestDeposit('perfectmoney')).status).toBe('pending');
    expect((await held.goto(`/deposits/start/${d.id}`))?.status()).toBe(200);

    // anyone else's deposit, a decided one, no such id, a bad id: 404, never a 500
    const other = await insertUser(sql, { password: PASSWORD });
    const [w] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${other.id}, 'real', 'USD') RETURNING id`;
    const [theirs] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total) VALUES (${other.id}, ${w.id}, 'perfectmoney', 100, 0, 100) RETURNING id`;
    await sql`INSERT INTO payment_starts (deposit_id, action, method, fields) VALUES (${theirs.id}, 'https://perfectmoney.is/api/step1.asp', 'POST', ${sql.json({ PAYMENT_ID: `dep-${theirs.id}` })})`;
    for (const path of [`/deposits/start/${theirs.id}`, `/deposits/start/${approved.perfectmoney}`, '/deposits/start/999999999999', '/deposits/start/abc', '/deposits/start/1e3', '/deposits/start/99999999999999999999']) {
      expect((await held.goto(path))?.status(), path).toBe(404);
    }
    await held.close();
  }, 90_000);
});
