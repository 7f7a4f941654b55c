// Pending orders in real Chromium against the running stack (docs/specs.md#pending-orders),
// prices driven with the engine's test control (ENGINE_TEST_CONTROLS=1): a Buy Limit placed
// below the market from the order dialog waits on the Pending tab and is filled by the engine,
// live, when the price comes down to it (the simulator keeps BTC near its own price: the order is
// placed 10 % below, out of its reach); the dialog and the tab are axe-clean, at 390 px too.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { collectErrors, database, insertUser, launch, newPage, signIn } from './support/browser.ts';
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

async function setQuote(bid: number, ask: number) {
  const res = await fetch(`${ENGINE}/v1/test/quotes`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-secret': engineSecret() },
    body: JSON.stringify({ symbol: SYMBOL, bid, ask }),
  });
  expect(res.status).toBe(200);
}

async function quote(): Promise<{ bid: number; ask: number }> {
  const r = await (await fetch(`${ENGINE}/v1/quotes`)).json();
  const q = r.quotes.find((x: { name: string }) => x.name === SYMBOL);
  return { bid: q.bids, ask: q.asks };
}

const sql = database();
let browser: Browser;

async function customer(funds: string) {
  const u = await insertUser(sql, { password: PASSWORD });
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  await sql`SELECT * FROM post_ledger(${b.id}, ${funds}, 'demo_credit', 'signup', ${String(u.id)})`;
  await sql`UPDATE users SET active_balance_id = ${b.id} WHERE id = ${u.id}`;
  await sql`INSERT INTO kyc_documents (user_id, type, status, decided_at) VALUES (${u.id}, 'passport', 'approved', now())`;
  return { ...u, balanceId: Number(b.id) };
}

async function openDashboard(page: Page, email: string) {
  await signIn(page, email, PASSWORD);
  await page.waitForURL('**/dashboard');
  await page.getByText('Live', { exact: true }).waitFor(); // the SSE stream is open
  await page.getByRole('tab', { name: 'CRYPTO' }).click();
  await page.locator(`li[data-symbol="${SYMBOL}"] .instrument-main`).click();
  await page.getByRole('region', { name: 'Chart' }).getByText('BTC/USD').waitFor();
}

beforeAll(async () => { browser = await launch(); });
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

describe('pending orders', () => {
  test('a Buy Limit placed below the market is filled live when the price comes down', async () => {
    const c = await customer('100000');
    const page = await newPage(browser);
    const errors = collectErrors(page);
    await openDashboard(page, c.email);
    await page.evaluate(() => { (window as unknown as { __noReload: boolean }).__noReload = true; });

    await page.getByRole('button', { name: /^BUY/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('spinbutton', { name: 'Amount', exact: true }).fill('0.1');
    await dialog.getByRole('radio', { name: 'Limit' }).check();
    const price = dialog.getByRole('spinbutton', { name: 'Buy Limit price' });
    // the price starts on the valid side: below the ask (the simulator moves it; far below it, the order waits)
    const { ask } = await quote();
    expect(Number(((await price.inputValue()) || '').replace(/,/g, ''))).toBeLessThan(ask);
    // on the wrong side the dialog says why and will not send it
    await price.fill(String(Math.round(ask + 500)));
    await dialog.getByText(/^Buy Limit price must be below the ask \(/).waitFor();
    await expect.poll(() => dialog.getByRole('button', { name: 'Place Buy Limit' }).isDisabled()).toBe(true);
    const P = Math.round(ask * 0.9);
    const shown = P.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    await price.fill(String(P));
    await dialog.getByRole('combobox', { name: 'Expiry' }).selectOption('gtc');
    // what will happen, before it is sent; the margin it will need at its price (49,500 × 0.1 / leverage)
    const summary = dialog.getByTestId('order-summary');
    await expect.poll(() => summary.textContent()).toContain(`Buy Limit 0.1 units BTC/USD at ${shown}: fills when the ask falls to ${shown} or below`);
    const [{ leverage }] = await sql`SELECT leverage FROM instruments WHERE name = ${SYMBOL}`;
    const margin = (P * 0.1 / Number(leverage)).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    expect(await dialog.getByTestId('margin-required').textContent()).toContain(margin);
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'Place Buy Limit' }).click();
    await page.getByText('Pending Order Placed Successfully').waitFor();
    await dialog.waitFor({ state: 'detached' });

    const [p] = await sql`SELECT id, price::float8 AS price, status FROM pending_orders WHERE user_id = ${c.id}`;
    expect([p.price, p.status]).toEqual([P, 'pending']);
    // nothing reserved while it waits
    expect((await sql`SELECT margin::float8 AS m FROM balances WHERE id = ${c.balanceId}`)[0].m).toBe(0);

    // the Pending tab lists it, with Modify and Cancel
    await page.getByRole('tab', { name: /Pending Orders/ }).click();
    await page.getByTestId(`pending-price-${p.id}`).waitFor();
    expect(await page.getByTestId(`pending-price-${p.id}`).textContent()).toBe(shown);
    await page.getByRole('button', { name: `Modify pending order #${p.id}` }).waitFor();
    await page.getByRole('button', { name: `Cancel pending order #${p.id}` }).waitFor();
    await expectNoAxeViolations(page);

    // the price comes down through it: filled at the better ask, live
    await setQuote(P - 20, P - 10);
    await page.getByRole('status').filter({ hasText: `Pending order #${p.id} filled` }).waitFor();
    await expect.poll(() => page.getByTestId('pending-count').textContent()).toBe('0');
    await page.getByTestId(`pending-price-${p.id}`).waitFor({ state: 'detached' });
    const [done] = await sql`SELECT status, order_id, fill_rate::float8 AS fill FROM pending_orders WHERE id = ${p.id}`;
    expect([done.status, done.fill]).toEqual(['filled', P - 10]);
    const [pos] = await sql`SELECT open_rate::float8 AS rate FROM orders WHERE id = ${done.order_id}`;
    expect(pos.rate).toBe(P - 10);
    await page.getByRole('tab', { name: 'Opened Positions' }).click();
    await page.getByTestId(`status-${done.order_id}`).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);

    // at 390 px the dialog's order type, price and expiry fit and are axe-clean
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: /^BUY/ }).click();
    await page.getByRole('dialog').getByRole('radio', { name: 'Stop' }).check();
    await page.getByRole('dialog').getByRole('spinbutton', { name: 'Buy Stop price' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectNoAxeViolations(page);
    expect(errors.take()).toEqual([]);
    await page.context().close();
  });
});
