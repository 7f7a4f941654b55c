// The admin dashboard (/admin) in real Chromium against the running stack: the cards and both
// charts render (server-rendered SVG, no hydration error), each chart has its table; the open
// exposure lists a position the engine opened and goes live, and a position opened or closed
// while the page is open comes or goes without a reload (the stream's exposure topic); From / To filter through the URL and
// Reset clears them; a bad date is a message under the field (400), not an error page; at 390 px
// nothing overflows the screen. axe-core on each state.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const ENGINE = process.env.E2E_ENGINE_URL ?? 'http://127.0.0.1:4000';
const SYMBOL = 'BTC_USD'; // crypto: its market never closes
const PASSWORD = 'E2e-pass-1234';

function engineSecret(): string {
  if (process.env.ENGINE_SECRET) return process.env.ENGINE_SECRET;
  const file = path.resolve(import.meta.dirname, '../.data/secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')).ENGINE_SECRET;
  return 'dev-only-engine-secret-change-me';
}

const sql = database();
let browser: Browser;

beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); await sql.end(); });

async function adminPage(width = 1440): Promise<{ page: Page; errors: string[] }> {
  const admin = await insertUser(sql, { password: PASSWORD, roleId: 1, fullName: 'E2E Admin' });
  const page = await newPage(browser);
  await page.setViewportSize({ width, height: 900 });
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  await signIn(page, admin.email, PASSWORD);
  await page.waitForURL((u) => u.pathname.startsWith('/admin'));
  return { page, errors };
}

describe('admin dashboard', () => {
  test('cards, both charts with their tables, and the live exposure of an open position', async () => {
    // a customer's open position on BTC_USD, opened by the engine
    const u = await insertUser(sql, { password: PASSWORD });
    const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
    await sql`SELECT * FROM post_ledger(${b.id}, 100000, 'adjustment', 'e2e', ${`dash-${b.id}`})`;
    await sql`UPDATE users SET active_balance_id = ${b.id} WHERE id = ${u.id}`;
    const res = await fetch(`${ENGINE}/v1/orders`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-secret': engineSecret() },
      body: JSON.stringify({ userId: u.id, balanceId: Number(b.id), type: 'buy', instrument: SYMBOL, amount: '0.05' }),
    });
    expect(res.status, JSON.stringify(await res.clone().json())).toBe(201);

    const { page, errors } = await adminPage();
    const response = await page.goto('/admin');
    expect(response?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    for (const card of ['Total Deposits', 'Total Withdraws', 'Total Trades', 'Total Users', 'Profit/Loss']) {
      await page.getByRole('heading', { name: card, level: 2 }).waitFor();
    }
    await page.getByText(/leave out demo wallets/).waitFor();
    // the charts are SVG from the server's HTML on (a bar per day and series, a pie slice per category traded)
    const html = await (await fetch(new URL('/admin', page.url()).toString(), { headers: { cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ') } })).text();
    expect(html).toContain('recharts-surface');
    expect(await page.locator('.admin-dash-chart svg.recharts-surface').count()).toBe(2);
    expect(await page.locator('.admin-dash-bar-deposits .recharts-rectangle').count()).toBeGreaterThan(0);
    expect(await page.locator('.recharts-pie-sector').count()).toBeGreaterThan(0);
    // the tables behind them: 7 days of deposits and withdrawals; trades per category
    const recent = page.getByRole('table', { name: /Recent Transactions/ });
    expect(await recent.getByRole('row').count()).toBe(8);
    expect(await recent.getByRole('cell').first().textContent()).toMatch(/^\$\d[\d,]*\.\d{2}$/);
    const engagement = page.getByRole('table', { name: 'Trade Engagement' });
    expect(await engagement.getByRole('row', { name: /Crypto/ }).count()).toBe(1);
    // the exposure: the position's instrument, then live
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: new RegExp(SYMBOL) }) });
    await row.waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: 15_000 });
    // the broker's floating P/L follows the streamed prices without a reload
    const pnl = row.getByRole('cell').nth(4);
    const first = await pnl.textContent();
    expect(first).toMatch(/\$\d/);
    await expect.poll(() => pnl.textContent(), { timeout: 20_000 }).not.toBe(first);
    await expectNoAxeViolations(page);
    expect(errors.filter((e) => /hydrat|recharts|width|height/i.test(e))).toEqual([]);
    await page.context().close();
  });

  test('a position opened while the dashboard is open appears without a reload, and goes when it closes', async () => {
    // a crypto instrument nobody holds a real open position on (the e2e files run one at a time)
    const [free] = await sql`
      SELECT i.name FROM instruments i
       WHERE i.category = 'crypto' AND i.tradable AND i.name <> ${SYMBOL}
         AND NOT EXISTS (SELECT 1 FROM orders o JOIN balances b ON b.id = o.balance_id
                          WHERE o.instrument_id = i.id AND o.close_time IS NULL AND o.deleted_at IS NULL AND b.mode = 'real')
       ORDER BY i.name LIMIT 1`;
    expect(free, 'a crypto instrument without open positions').toBeTruthy();
    const symbol: string = free.name;
    const u = await insertUser(sql, { password: PASSWORD });
    const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
    await sql`SELECT * FROM post_ledger(${b.id}, 100000, 'adjustment', 'e2e', ${`dash-live-${b.id}`})`;

    const { page, errors } = await adminPage();
    await page.goto('/admin');
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: 15_000 });
    const rowOf = () => page.locator('.admin-dash-exposure tbody tr').filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${symbol}\\b`) }) });
    expect(await rowOf().count()).toBe(0);
    // a mark on the window: a reload would drop it
    await page.evaluate(() => { (window as unknown as { __stayed: boolean }).__stayed = true; });

    const res = await fetch(`${ENGINE}/v1/orders`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-secret': engineSecret() },
      body: JSON.stringify({ userId: u.id, balanceId: Number(b.id), type: 'sell', instrument: symbol, amount: '1' }),
    });
    const placed = await res.json();
    expect(res.status, JSON.stringify(placed)).toBe(201);
    await rowOf().waitFor({ timeout: 10_000 });
    expect(await rowOf().getByRole('cell').nth(0).textContent()).toBe('1'); // one position
    expect(await rowOf().getByRole('cell').nth(3).textContent()).toMatch(/^[-−]1$/); // net volume: sold 1
    expect(await page.evaluate(() => (window as unknown as { __stayed?: boolean }).__stayed)).toBe(true);

    const closed = await fetch(`${ENGINE}/v1/orders/${placed.order.id}/close`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-secret': engineSecret() },
      body: JSON.stringify({ userId: u.id }),
    });
    expect(closed.status, JSON.stringify(await closed.clone().json())).toBe(200);
    await expect.poll(() => rowOf().count(), { timeout: 10_000 }).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __stayed?: boolean }).__stayed)).toBe(true);
    await expectNoAxeViolations(page);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('From / To filter through the URL, Reset clears them, a bad date is a message under the field', async () => {
    const { page } = await adminPage();
    await page.goto('/admin');
    await page.getByLabel('From', { exact: true }).fill('2099-01-01');
    await page.getByLabel('To', { exact: true }).fill('2099-01-31');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL((u) => u.searchParams.get('dateStart') === '2099-01-01' && u.searchParams.get('dateEnd') === '2099-01-31');
    await page.getByText('01/01/2099 to 31/01/2099').waitFor();
    const trades = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Total Trades' }) });
    expect(await trades.locator('.admin-dash-figure').textContent()).toBe('0');
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('2099-01-01');
    await page.getByText('No trades in this period.').waitFor();
    await expectNoAxeViolations(page);

    await page.getByRole('link', { name: 'Reset' }).click();
    await page.waitForURL((u) => u.pathname === '/admin' && u.search === '');
    await page.getByText('All time').waitFor();
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('');

    const bad = await page.goto('/admin?dateStart=2024-05-02&dateEnd=2024-05-01');
    expect(bad?.status()).toBe(400);
    await page.getByText('End date must be after start date').waitFor();
    expect(await page.getByLabel('To', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('heading', { name: 'Total Trades' }).count()).toBe(0);
    await expectNoAxeViolations(page);
    await page.context().close();
  });

  test('at 390 px the page fits the screen', async () => {
    const { page, errors } = await adminPage(390);
    await page.goto('/admin');
    await page.getByRole('heading', { name: 'Recent Transactions' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const svg = await page.locator('.admin-dash-chart svg.recharts-surface').first().boundingBox();
    expect(svg!.width).toBeLessThanOrEqual(390);
    await expectNoAxeViolations(page);
    expect(errors.filter((e) => /hydrat/i.test(e))).toEqual([]);
    await page.context().close();
  });
});
