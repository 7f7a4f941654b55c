// Roles and languages in real Chromium: the demo manager's sidebar and 403, and the
// language switcher changing the page's text.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch, newPage, signIn } from './support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('roles', () => {
  test('a manager sees only their sidebar entries and gets 403 at /admin/settings', async () => {
    const page = await newPage(browser);
    await signIn(page, 'manager@demo.broker', 'Demo-1234');
    await page.waitForURL('**/admin/trades/all');
    const sidebar = page.getByRole('navigation', { name: 'Sidebar' });
    await sidebar.waitFor();
    await expect.poll(() => page.title()).toMatch(/ Admin$/);
    const text = (await sidebar.textContent()) ?? '';
    for (const shown of ['Transactions', 'User Management', 'Trades', 'Customers', 'CRM', 'Sales Statuses', 'Promo Code']) expect(text).toContain(shown);
    for (const hidden of ['Site Settings', 'Languages', 'Admin & Staffs', 'Teams', 'Server Management', 'Trade Management', 'Withdraw Settings', 'Automatic Gateways']) {
      expect(text, hidden).not.toContain(hidden);
    }
    const hrefs = await sidebar.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs).not.toContain('/admin/settings');
    expect(hrefs).not.toContain('/admin');

    const res = await page.goto('/admin/settings');
    expect(res?.status()).toBe(403);
    await page.getByRole('heading', { name: 'Access denied' }).waitFor();
    await page.context().close();
  });

  test('each demo role signs in to its own home', async () => {
    const homes: Record<string, string> = {
      'admin@demo.broker': '/admin', 'affiliate@demo.broker': '/affiliate', 'sales@demo.broker': '/admin/crm/sales/all',
      'retention@demo.broker': '/admin/crm/retention', 'alice@demo.broker': '/dashboard',
    };
    for (const [email, home] of Object.entries(homes)) {
      const page = await newPage(browser);
      await signIn(page, email, 'Demo-1234');
      await page.waitForURL((url) => url.pathname === home);
      await page.context().close();
    }
  });
});

describe('languages', () => {
  test('the language switch changes the page text and is remembered', async () => {
    const page = await newPage(browser);
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign In' }).waitFor();
    await page.getByLabel('Language').first().selectOption('fr');
    await page.getByRole('heading', { name: 'Connexion' }).waitFor();
    expect(await page.getByRole('button', { name: 'Connexion' }).count()).toBe(1);
    expect(await page.evaluate(() => localStorage.getItem('lang'))).toBe('fr');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'lang')?.value).toBe('fr');
    await page.reload();
    await page.getByRole('heading', { name: 'Connexion' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    await page.context().close();
  });
});
