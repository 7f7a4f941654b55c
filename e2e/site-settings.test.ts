// Site settings, provider settings and the status pages in real Chromium against the running
// stack: the admin uploads a logo and renames the app, and the signed-out sign-in page shows both
// at once (no restart); the API settings cards save a key masked; the API status rows leave
// 'Checking' as the engine's heartbeats arrive; Server Information shows the web process and the
// engine. axe-core on every page.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { BASE_URL, database, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const sql = database();
let browser: Browser;
let savedSettings: Record<string, unknown>[] = [];
let savedApis: Record<string, unknown>[] = [];

beforeAll(async () => {
  browser = await launch();
  savedSettings = await sql`SELECT key, value FROM site_settings`;
  savedApis = await sql`SELECT * FROM api_settings`;
});
afterAll(async () => {
  await browser?.close();
  await sql.begin(async (tx) => {
    await tx`DELETE FROM site_settings`;
    for (const r of savedSettings) await tx`INSERT INTO site_settings (key, value) VALUES (${r.key as string}, ${tx.json(r.value as never)})`;
    await tx`DELETE FROM api_settings`;
    for (const r of savedApis) await tx`INSERT INTO api_settings ${tx(r as Record<string, never>)}`;
  });
  await sql.end();
});

const toast = (page: Page, text: string) => page.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });

async function admin(): Promise<Page> {
  const page = await newPage(browser);
  await signIn(page, 'admin@demo.broker', 'Demo-1234');
  await page.waitForURL('**/admin');
  return page;
}

async function drawnPng(page: Page): Promise<Buffer> {
  const b64 = await page.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = 120;
    c.height = 40;
    const x = c.getContext('2d')!;
    x.fillStyle = '#e3b341';
    x.fillRect(0, 0, 120, 40);
    return c.toDataURL('image/png').split(',')[1];
  });
  return Buffer.from(b64, 'base64');
}

describe('site settings', () => {
  test('the admin uploads a logo and renames the app; the signed-out sign-in page shows both', async () => {
    const page = await admin();
    await page.goto('/admin/settings');
    await page.getByRole('heading', { name: 'Site Settings' }).waitFor();
    await expectNoAxeViolations(page);

    // a required field left empty says so under it, and nothing is saved
    await page.getByLabel('App Name').fill('');
    await page.getByLabel('App URL').click();
    await page.getByText('required', { exact: true }).first().waitFor();

    const name = `E2E Broker ${Date.now().toString(36)}`;
    await page.getByLabel('App Name').fill(name);
    await page.getByLabel('App Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: await drawnPng(page) });
    await page.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Settings updated successfully').waitFor();
    // the root loader ran again: the shell already carries the new name
    await page.locator('.brand-text', { hasText: name }).first().waitFor();

    const [row] = await sql`SELECT value FROM site_settings WHERE key = 'branding'`;
    expect(row.value.appName).toBe(name);
    expect(row.value.logoPath).toMatch(/^\/uploads\/\d+$/);

    // a visitor who is not signed in
    const ctx = await browser.newContext({ baseURL: BASE_URL, viewport: { width: 1280, height: 800 } });
    const visitor = await ctx.newPage();
    await visitor.goto('/');
    await visitor.getByRole('link', { name }).first().waitFor();
    const logo = visitor.locator(`img.brand-logo[src="${row.value.logoPath}"]`).first();
    await logo.waitFor();
    expect(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120);
    await expectNoAxeViolations(visitor);
    await ctx.close();
    await page.close();
  });
});

describe('provider settings and status pages', () => {
  test('a provider key is saved and shown only masked', async () => {
    const page = await admin();
    await page.goto('/admin/apis');
    await page.getByRole('heading', { name: 'API Settings' }).waitFor();
    await expectNoAxeViolations(page);
    const card = page.getByTestId('api-card-voiso');
    await card.getByLabel('Cluster ID').fill('cluster-e2e');
    await card.getByLabel('API Key').fill('voiso-key-E2E-0123456789');
    await card.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Voiso updated successfully').waitFor();
    // only the last four characters are ever shown
    await card.getByText('Stored (••••6789)', { exact: false }).waitFor();
    expect(await page.content()).not.toContain('voiso-key-E2E-0123456789');
    await page.close();
  });

  test('API status rows leave Checking as heartbeats arrive; Server Information shows web and engine', async () => {
    const page = await admin();
    await page.goto('/admin/status/api');
    await page.getByRole('heading', { name: 'API Status' }).waitFor();
    for (const api of ['polygonForex', 'polygonCrypto', 'eodStock', 'oandaRest']) {
      // the engine answers every row: a provider's own beats, 'not configured' or 'simulator'
      await page.locator(`[data-testid="health-${api}"] [data-status="connected"], [data-testid="health-${api}"] [data-status="disconnected"]`).waitFor({ timeout: 20_000 });
    }
    await expectNoAxeViolations(page);

    await page.goto('/admin/status/server');
    await page.getByRole('heading', { name: 'Server Information' }).waitFor();
    await page.getByTestId('server-web').getByText('CPU Model').waitFor();
    await page.getByTestId('server-engine').getByText('CPU Model').waitFor();
    await page.getByTestId('server-engine').getByText('Process Memory').waitFor();
    await expectNoAxeViolations(page);
    await page.close();
  });
});
