// Partial close and trailing stop in real Chromium against the running stack (docs/specs.md
// "Orders"): half of a position closed from the positions area, the part listed as its own row
// linked to the position; a trailing stop set in the stop-loss dialog, moved by the engine when
// the price rises (test control ENGINE_TEST_CONTROLS=1) and shown live; both dialogs axe-clean.
// Crypto: its market never closes. The feed's own walk goes on beside the test's prices, so the
// moves are small next to the trailing distance.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const ENGINE = process.env.E2E_ENGINE_URL ?? 'http://127.0.0.1:4000';
const SYMBOL = 'BTC_USD';
const PASSWORD = 'E2e-pass-1234';

function engineSecret(): string {
  if (process.env.ENGINE_SECRET) return process.env.ENGINE_SECRET;
  const file = path.resolve(import.meta.dirname, '../.data/secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')).ENGINE_SECRET;
  return 'dev-only-engine-secret-change-me';
}

async function engineCall(p: string, body: unknown) {
  const res = await fetch(`${ENGINE}/v1${p}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-secret': engineSecret() }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function quote(symbol: string): Promise<{ bid: number; ask: number }> {
  const r = await (await fetch(`${ENGINE}/v1/quotes`)).json();
  const q = r.quotes.find((x: { name: string }) => x.name === symbol);
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
}

beforeAll(async () => { browser = await launch(); });
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

describe('partial close and trailing stop', () => {
  test('half of a position closes from the positions area; the part is its own row, linked to the position', async () => {
    const c = await customer('100000');
    const placed = await engineCall('/orders', { userId: c.id, balanceId: c.balanceId, type: 'buy', instrument: SYMBOL, amount: '0.2' });
    expect(placed.status).toBe(201);
    const id = placed.body.order.id as number;
    const page = await newPage(browser);
    await openDashboard(page, c.email);
    const row = page.getByRole('row').filter({ has: page.getByTestId(`status-${id}`) });
    await row.getByRole('button', { name: 'Close', exact: true }).click();
    const dialog = page.getByRole('dialog');
    const qty = dialog.getByRole('textbox', { name: 'Units to close' });
    await expect.poll(() => qty.inputValue()).toBe('0.2');
    await dialog.getByText('The whole position closes').waitFor();
    // more than the position: said under the field, nothing can be sent
    await qty.fill('0.25');
    await dialog.getByText("Amount must be less than the position's 0.2").waitFor();
    expect(await dialog.getByRole('button', { name: 'Close position' }).isDisabled()).toBe(true);
    await qty.fill('0.1');
    await dialog.getByText('The rest stays open').waitFor();
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'Close part' }).click();
    await page.getByText('Position Partially Closed').waitFor();

    const [part] = await sql`SELECT id, trade_amount::text AS amount, close_reason FROM orders WHERE position_id = ${id}`;
    expect(part).toMatchObject({ amount: '0.10000000', close_reason: 'manual' });
    const [pos] = await sql`SELECT trade_amount::text AS amount, close_time FROM orders WHERE id = ${id}`;
    expect(pos).toEqual({ amount: '0.10000000', close_time: null });
    // live: the part is listed, linked to the position, which is still open with the rest
    await page.getByTestId(`part-${part.id}`).filter({ hasText: `Part of #${id}` }).waitFor();
    await expect.poll(() => page.getByTestId(`status-${id}`).textContent()).toBe('OPENED');
    await expect.poll(() => row.getByRole('cell').nth(3).textContent()).toBe('0.1');
    await expectNoAxeViolations(page);

    // at 390 px the dialog fits the screen, its field usable
    await page.setViewportSize({ width: 390, height: 844 });
    await row.getByRole('button', { name: 'Close', exact: true }).click();
    const small = page.getByRole('dialog');
    const box = (await small.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await small.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await small.getByRole('textbox', { name: 'Units to close' }).fill('0.05');
    await small.getByText('The rest stays open').waitFor();
    await small.getByRole('button', { name: 'Cancel' }).click();
    await page.context().close();
  });

  test('a trailing stop set in the stop-loss dialog follows the price up, live, and never back', async () => {
    const c = await customer('100000');
    const placed = await engineCall('/orders', { userId: c.id, balanceId: c.balanceId, type: 'buy', instrument: SYMBOL, amount: '0.1' });
    expect(placed.status).toBe(201);
    const id = placed.body.order.id as number;
    const [{ digits }] = await sql`SELECT digits FROM instruments WHERE name = ${SYMBOL}`;
    const fmt = (v: number) => new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(v);
    const page = await newPage(browser);
    await openDashboard(page, c.email);

    const { ask } = await quote(SYMBOL);
    const distance = Math.round(ask * 0.03); // far beyond the feed's own moves during the test
    // at 390 px: the stop-loss dialog with its trailing stop fits the screen
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId(`loss-${id}`).click();
    const dialog = page.getByRole('dialog');
    const box = (await dialog.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await dialog.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await dialog.getByRole('switch', { name: 'Trailing stop' }).check();
    const field = dialog.getByRole('textbox', { name: 'Trailing distance' });
    await field.fill('0');
    await dialog.getByText('Trailing distance must be greater than 0').waitFor();
    await field.fill(String(distance));
    await dialog.getByText(/pips · at least/).waitFor();
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'Set Stop Loss' }).click();
    await page.getByText('Trailing Stop Set Successfully').waitFor();
    const [set] = await sql`SELECT loss::float8 AS loss, trailing_distance::float8 AS d FROM orders WHERE id = ${id}`;
    expect(set.d).toBe(distance);
    expect(set.loss).toBeGreaterThan(ask * 0.95);

    // the price rises 1 %: the stop follows it (written within about a second) and the page shows it
    const up = Math.round(ask * 1.01);
    expect((await engineCall('/test/quotes', { symbol: SYMBOL, bid: up - 1, ask: up })).status).toBe(200);
    await expect.poll(async () => (await sql`SELECT loss::float8 AS loss FROM orders WHERE id = ${id}`)[0].loss, { timeout: 5000 }).toBe(up - distance);
    await expect.poll(() => page.getByTestId(`loss-${id}`).textContent(), { timeout: 5000 }).toBe(fmt(up - distance));
    await page.getByText(`Trailing ${fmt(distance)}`).waitFor();
    // back down (the feed's own price): the stop stays where it was moved
    await page.waitForTimeout(2000);
    const [after] = await sql`SELECT loss::float8 AS loss, close_time FROM orders WHERE id = ${id}`;
    expect(after).toEqual({ loss: up - distance, close_time: null });
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM order_level_moves WHERE order_id = ${id}`;
    expect(n).toBeGreaterThanOrEqual(1);
    await page.context().close();
  });
});
