// The trading configuration in real Chromium against the running stack: an admin adds an
// instrument that the running engine starts quoting and trading without a restart, edits it, is
// told why it cannot be deleted and what making it untradable does; an admin changes a plan's
// leverage and a customer on that plan sees the new margin in the buy dialog; the spreads and lots
// forms. axe-core on every page and dialog.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { marketStatus } from '../engine/src/domain/hours.ts';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const ENGINE = process.env.E2E_ENGINE_URL ?? 'http://127.0.0.1:4000';
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
  return { status: res.status, body: await res.json() };
}

async function engineQuote(symbol: string) {
  const r = await (await fetch(`${ENGINE}/v1/quotes`)).json();
  return r.quotes.find((x: { name: string }) => x.name === symbol) as { bids: number | null; asks: number | null; stale: boolean; tradable: boolean } | undefined;
}

const sql = database();
let browser: Browser;

/** A customer with one real USD wallet of `funds`, KYC approved, on `planId` when given (else the plan insertUser gave). */
async function customer(funds: string, planId?: number) {
  const u = await insertUser(sql, { password: PASSWORD });
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  await sql`SELECT * FROM post_ledger(${b.id}, ${funds}, 'demo_credit', 'signup', ${String(u.id)})`;
  await sql`UPDATE users SET active_balance_id = ${b.id}, pricing_plan_id = coalesce(${planId ?? null}::bigint, pricing_plan_id) WHERE id = ${u.id}`;
  await sql`INSERT INTO kyc_documents (user_id, type, status, decided_at) VALUES (${u.id}, 'passport', 'approved', now())`;
  return { ...u, balanceId: Number(b.id) };
}

async function admin(): Promise<Page> {
  const page = await newPage(browser);
  await signIn(page, 'admin@demo.broker', 'Demo-1234');
  await page.waitForURL('**/admin');
  return page;
}

const toast = (page: Page, text: string) => page.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });
const suffix = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`.toUpperCase();

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

describe('instruments', () => {
  test('an admin adds an instrument, the running engine quotes and trades it, the admin edits it; delete and untradable say what happens to open positions', async () => {
    const page = await admin();
    await page.goto('/admin/instruments/crypto'); // crypto: its market never closes, so the feed ticks any day
    await page.getByRole('heading', { name: 'Crypto' }).waitFor();
    await expectNoAxeViolations(page);

    await page.getByRole('button', { name: 'Add New' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add Instrument' });
    await dialog.waitFor();
    await expectNoAxeViolations(page);
    // the browser's validation and then the server's: nothing is saved without a name
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await dialog.getByText('Name is required').waitFor();
    await dialog.getByText('Base is required').waitFor();
    await expectNoAxeViolations(page);

    const name = `E2E${suffix()}_USD`;
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByLabel('Base').fill('e2e');
    await dialog.getByLabel('Quote', { exact: true }).fill('USD');
    await dialog.getByLabel('Chart Provider').fill('COINBASE');
    await dialog.getByLabel('Leverage').fill('5');
    await dialog.getByLabel('Digits').fill('2');
    await dialog.getByLabel('Bids').fill('100');
    await dialog.getByLabel('Asks').fill('100.5');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Instrument added successfully').waitFor();
    await dialog.waitFor({ state: 'detached' });
    const [row] = await sql`SELECT id, category, base, tradable, leverage FROM instruments WHERE name = ${name}`;
    expect(row).toMatchObject({ category: 'crypto', base: 'E2E', tradable: true, leverage: 5 });

    // the running engine: quoted by the feed without a restart, then tradable
    await expect.poll(async () => { const q = await engineQuote(name); return !!q && !q.stale && (q.bids ?? 0) > 0; }, { timeout: 15_000 }).toBe(true);
    const c = await customer('100000');
    const placed = await placeOrder({ userId: c.id, balanceId: c.balanceId, type: 'buy', instrument: name, amount: '1' });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    expect(placed.body.order.leverage).toBe(5);

    // the list shows it (search by name), with its saved quote formatted with 2 digits
    await page.goto(`/admin/instruments/crypto?search=${name}`);
    const tableRow = page.getByRole('row').filter({ hasText: name });
    await tableRow.waitFor();
    expect(await tableRow.textContent()).toContain('Yes');

    // edit: leverage and alias
    await page.getByRole('button', { name: `Edit ${name}` }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Instrument' });
    await edit.waitFor();
    await expectNoAxeViolations(page);
    await edit.getByLabel('Leverage').fill('10');
    await edit.getByLabel('Alias').fill('End to end coin');
    await edit.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Instrument updated successfully').waitFor();
    await edit.waitFor({ state: 'detached' });
    await expect.poll(() => tableRow.textContent()).toContain('End to end coin');
    expect((await sql`SELECT leverage, alias FROM instruments WHERE name = ${name}`)[0]).toEqual({ leverage: 10, alias: 'End to end coin' });
    // the engine follows: a new order takes the new leverage
    await expect.poll(async () => (await placeOrder({ userId: c.id, balanceId: c.balanceId, type: 'buy', instrument: name, amount: '1' })).body.order?.leverage, { timeout: 5000 }).toBe(10);

    // delete: refused, saying how many positions are open
    await page.reload();
    await page.getByRole('button', { name: `Delete ${name}` }).click();
    const confirm = page.getByRole('dialog', { name: `Delete ${name}` });
    await confirm.getByText('Are you sure to delete this pair?').waitFor();
    await confirm.getByText('Open positions on this instrument: 2. Close them before deleting it.').waitFor();
    await expectNoAxeViolations(page);
    await confirm.getByRole('button', { name: 'Yes' }).click();
    await toast(page, 'Open positions on this instrument: 2. Close them before deleting it.').waitFor();
    expect(await sql`SELECT 1 FROM instruments WHERE name = ${name}`).toHaveLength(1);
    await page.keyboard.press('Escape');

    // untradable: the dialog says what happens to the open positions and asks to confirm
    await page.getByRole('button', { name: `Edit ${name}` }).click();
    await edit.waitFor();
    await edit.getByLabel('Tradable').uncheck();
    await edit.getByText('Open positions on this instrument: 2', { exact: true }).waitFor();
    await edit.getByText(/Open positions stay open: they can still be closed/).waitFor();
    await expectNoAxeViolations(page);
    await edit.getByRole('button', { name: 'Submit' }).click();
    await edit.getByText('Confirm that the open positions stay open').waitFor();
    expect((await sql`SELECT tradable FROM instruments WHERE name = ${name}`)[0].tradable).toBe(true);
    await edit.getByLabel('I understand: make it untradable').check();
    await edit.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Instrument updated successfully').waitFor();
    await expect.poll(() => tableRow.textContent()).toContain('No');
    await expect.poll(async () => (await placeOrder({ userId: c.id, balanceId: c.balanceId, type: 'buy', instrument: name, amount: '1' })).body.message, { timeout: 5000 })
      .toBe('This instrument is not tradable');
    expect(await sql`SELECT 1 FROM orders WHERE user_id = ${c.id} AND close_time IS NULL`).toHaveLength(2);
    const trail = await sql`SELECT action FROM audit_events WHERE target_kind = 'instrument' AND target_id = ${String(row.id)} ORDER BY id`;
    expect(trail.map((a) => a.action)).toEqual(['instrument.create', 'instrument.update', 'instrument.update']);
    await page.context().close();
  }, 120_000);
});

describe('pricing plans', () => {
  test("an admin changes a plan's leverage and a customer on that plan sees the new margin in the buy dialog", async () => {
    // forex, as the change is a forex leverage; on a weekend the forex market is closed (its BUY
    // button disabled), and the same flow runs on crypto's leverage instead
    const fx = marketStatus(new Date()).fx === 'open';
    const market = fx ? { tab: 'FOREX', symbol: 'EUR_USD', field: 'Forex leverage', qty: 'Lots', qtyValue: '0.01', units: 1000 }
      : { tab: 'CRYPTO', symbol: 'BTC_USD', field: 'Crypto leverage', qty: 'Amount', qtyValue: '0.01', units: 0.01 };
    const planName = `E2E Plan ${suffix()}`;
    const [plan] = await sql`INSERT INTO pricing_plans (name, description, price, forex_leverage, crypto_leverage)
                             VALUES (${planName}, 'e2e', 0, 100, 10) RETURNING id`;
    const c = await customer('100000', Number(plan.id));

    const client = await newPage(browser);
    await signIn(client, c.email, PASSWORD);
    await client.waitForURL('**/dashboard');
    /** The buy dialog's margin and ask for the market's quantity. */
    const marginPreview = async () => {
      await client.getByText('Live', { exact: true }).waitFor();
      await client.getByRole('tab', { name: market.tab }).click();
      await client.locator(`li[data-symbol="${market.symbol}"] .instrument-main`).click();
      await client.getByRole('button', { name: /^BUY/ }).click();
      const d = client.getByRole('dialog');
      await d.getByRole('spinbutton', { name: market.qty, exact: true }).fill(market.qtyValue);
      const read = async () => {
        const [ask, margin, leverage] = await Promise.all([
          d.locator('.order-prices div').filter({ hasText: 'Ask' }).locator('strong').textContent(),
          d.getByTestId('margin-required').textContent(),
          d.locator('.order-preview div').filter({ hasText: 'Leverage' }).locator('dd').textContent(),
        ]);
        return { ask: Number(ask!.replace(/[^0-9.]/g, '')), margin: Number(margin!.replace(/[^0-9.]/g, '')), leverage };
      };
      const v = await read();
      await expectNoAxeViolations(client);
      await client.keyboard.press('Escape');
      return v;
    };
    /** a to b within 0.5 %: the margin is shown to the cent and the price may tick between two reads */
    const near = (a: number, b: number) => expect(Math.abs(a / b - 1), `${a} vs ${b}`).toBeLessThan(0.005);
    const before = await marginPreview();
    expect(before.leverage).toBe(fx ? '1:100' : '1:10');
    near(before.margin, before.ask * market.units / (fx ? 100 : 10));

    const page = await admin();
    await page.goto(`/admin/pricing?search=${encodeURIComponent(planName)}`);
    await page.getByRole('heading', { name: 'Pricing Plans' }).waitFor();
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: `Edit ${planName}` }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Plan' });
    await edit.waitFor();
    await expectNoAxeViolations(page);
    await edit.getByLabel(market.field).fill('0');
    await edit.getByRole('button', { name: 'Submit' }).click();
    await edit.getByText(`${market.field.split(' ')[0]} leverage must be a whole number from 1 to 10,000, or empty (for example 100)`).waitFor();
    await edit.getByLabel(market.field).fill(fx ? '50' : '5');
    await edit.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Plan updated successfully').waitFor();
    await edit.waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: planName }).getByText(fx ? '1:50' : '1:5', { exact: true }).waitFor();

    await client.reload();
    const after = await marginPreview();
    expect(after.leverage).toBe(fx ? '1:50' : '1:5');
    // twice the margin of before for the same quantity (prices move a little in between)
    near(after.margin, after.ask * market.units / (fx ? 50 : 5));
    near(after.margin / after.ask, 2 * before.margin / before.ask);

    // the delete confirmation, then a refusal: a customer is on it
    await page.getByRole('button', { name: `Delete ${planName}` }).click();
    const confirm = page.getByRole('dialog', { name: `Delete ${planName}` });
    await confirm.getByText('Are you sure to delete this plan?').waitFor();
    await expectNoAxeViolations(page);
    await confirm.getByRole('button', { name: 'Yes' }).click();
    await toast(page, 'Customers on this plan: 1. Move them to another plan before deleting it.').waitFor();
    expect(await sql`SELECT 1 FROM pricing_plans WHERE id = ${plan.id}`).toHaveLength(1);
    await client.context().close();
    await page.context().close();
  }, 120_000);
});

describe('spreads and lots', () => {
  test('the forms refuse a bad value under its field and save with a toast', async () => {
    const page = await admin();
    await page.goto('/admin/spreads');
    await page.getByRole('heading', { name: 'Spread Settings' }).waitFor();
    await expectNoAxeViolations(page);
    const forex = page.getByLabel('Forex Spread');
    const kept = await forex.inputValue();
    await forex.fill('-1');
    await forex.blur();
    await page.getByText('Forex spread must be a number from 0 to 999,999,999,999 with at most 8 decimals (for example 12.5)').waitFor();
    await expectNoAxeViolations(page);
    await forex.fill(kept);
    await page.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Spreads updated successfully').waitFor();

    await page.goto('/admin/lots');
    await page.getByRole('heading', { name: 'Lot Settings' }).waitFor();
    await expectNoAxeViolations(page);
    const rows = page.locator('.lot-table tbody tr');
    const count = await rows.count();
    await page.getByRole('button', { name: 'Add row' }).click();
    await expect.poll(() => rows.count()).toBe(count + 1);
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Label is required').waitFor();
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: `Remove size ${count + 1}` }).click();
    await expect.poll(() => rows.count()).toBe(count);
    await page.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Lots updated successfully').waitFor();
    await page.context().close();
  }, 60_000);
});
