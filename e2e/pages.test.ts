// Pages against the running stack (on the free ports the test picked, not 3000): the default
// favicon, mail links on the address the stack serves, the mobile chart for the common symbol
// spellings and a visible note for an unknown one, and bad list queries that never answer 500.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { BASE_URL, database, insertUser, launch, newPage, signIn } from './support/browser.ts';

const PASSWORD = 'E2e-pass-1234';
const sql = database();
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launch();
  const u = await insertUser(sql, { password: PASSWORD });
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  await sql`UPDATE users SET active_balance_id = ${b.id}, pricing_plan_id = (SELECT min(id) FROM pricing_plans) WHERE id = ${u.id}`;
  page = await newPage(browser);
  await signIn(page, u.email, PASSWORD);
  await page.waitForURL('**/dashboard');
});
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

/** WCAG relative luminance contrast of two CSS rgb() colours. */
function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = (c.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
      const s = Number(v) / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

describe('static files and links', () => {
  test('/favicon.ico is served (a default icon)', async () => {
    const res = await fetch(`${BASE_URL}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/icon/);
  });

  test('a reset mail links to the address the stack serves on', async () => {
    const user = await insertUser(sql, { password: 'Old-password-1' });
    const p = await newPage(browser);
    await p.goto('/forgot-password');
    await p.getByLabel('Email').fill(user.email);
    await p.getByRole('button', { name: 'Submit' }).click();
    await p.getByRole('dialog', { name: 'Verification Email Sent' }).waitFor();
    const [row] = await sql`SELECT text_body FROM email_outbox WHERE to_address = ${user.email} ORDER BY id DESC LIMIT 1`;
    const link = /https?:\/\/\S+\/reset-password\/\S+/.exec(row.text_body as string)![0];
    expect(new URL(link).origin).toBe(new URL(BASE_URL).origin);
    await p.context().close();
  });
});

describe('mobile chart', () => {
  test.each(['EURUSD', 'EUR_USD', 'eur%2Fusd'])('/mobile-chart/%s shows the EUR/USD chart', async (s) => {
    const res = await page.goto(`/mobile-chart/${s}`);
    expect(res?.status()).toBe(200);
    await page.getByRole('figure', { name: 'Chart of EUR/USD', exact: true }).waitFor();
  });

  test('an unknown symbol shows the "not available" note, readable (WCAG AA)', async () => {
    const res = await page.goto('/mobile-chart/NOPE');
    const note = page.getByText('The chart is not available right now.');
    await note.waitFor({ state: 'visible' });
    expect(res?.status()).toBe(404);
    const colors = await note.evaluate((el) => ({
      fg: getComputedStyle(el).color,
      bg: getComputedStyle(el.closest('.mobile-chart')!).backgroundColor,
    }));
    expect(contrast(colors.fg, colors.bg)).toBeGreaterThanOrEqual(4.5);
  });
});

describe('bad list queries', () => {
  test.each([
    ['/statements?page=1e308', 200],
    ['/statements?page=99999999999999999999', 200],
    ['/dashboard?pos_page=1e308', 200],
    ['/statements?dateStart=0000-01-01', 400],
    ['/statements/export?dateStart=0000-01-01', 400],
    ['/auth/user', 200],
  ])('%s answers %i', async (url, status) => {
    const res = await page.request.get(url);
    expect(res.status()).toBe(status);
    if (status === 400) expect(await res.text()).toContain('The start date must be a date between 1970-01-01 and 2100-12-31.');
  });
});
