// The affiliate portal in real Chromium against the running stack: an affiliate generates an API key
// on /affiliate/api (shown once, copied), posts two leads with it through fetch (the second a duplicate
// of the first by phone, written nationally), and sees the new lead in their /affiliate list.
// axe-core on both pages.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { BASE_URL, database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const PASSWORD = 'E2e-pass-1234';
const sql = database();
let browser: Browser;

beforeAll(async () => { browser = await launch(); });
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

describe('affiliate portal', () => {
  test('generate a key, post two leads (one a duplicate by phone), see the new one', async () => {
    const tok = `Aff${Date.now().toString(36)}`;
    const aff = await insertUser(sql, { password: PASSWORD, roleId: 4, fullName: 'E2E Affiliate' });
    const page = await newPage(browser);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
    await signIn(page, aff.email, PASSWORD);
    await page.waitForURL((u) => u.pathname.startsWith('/affiliate'));
    await page.goto('/affiliate/api');
    await page.getByRole('heading', { name: 'API Key' }).waitFor();
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.getByText('API key generated successfully').first().waitFor();
    const input = page.getByTestId('api-key');
    await expect.poll(() => input.inputValue()).toMatch(/^ak_/);
    const key = await input.inputValue();
    await page.getByRole('button', { name: 'Copy API key' }).click();
    await page.getByText('Copied to clipboard').first().waitFor();
    await expectNoAxeViolations(page);

    const n = String(Date.now() % 1e8).padStart(8, '0');
    const answers = await page.evaluate(async ({ key, n, tok }) => {
      const send = (body: unknown) => fetch('/api/v1/leads', {
        method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'omit',
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const first = await send({ firstName: 'Nova', lastName: tok, email: `${tok.toLowerCase()}@example.com`, phone: `+44 74${n.slice(0, 2)} ${n.slice(2)}`, country: 'GB' });
      const second = await send({ firstName: 'Dup', lastName: tok, email: `other.${tok.toLowerCase()}@example.com`, phone: `074${n.slice(0, 2)} ${n.slice(2)}`, country: 'GB' });
      return { first, second };
    }, { key, n, tok });
    expect(answers.first.status).toBe(201);
    expect(answers.first.body.status).toBe('created');
    expect(answers.second.body).toEqual({ status: 'duplicate', reason: 'phone', message: 'This contact is already registered' });

    await page.goto('/affiliate');
    await page.getByRole('heading', { name: 'Leads' }).waitFor();
    const row = page.locator('table tbody tr', { hasText: `${tok.toLowerCase()}@example.com` });
    await row.waitFor();
    expect(await page.locator('table tbody tr', { hasText: 'Dup' }).count()).toBe(0);
    await expectNoAxeViolations(page);
  });
});
