// Languages, translations and the audit trail in real Chromium against the running stack: an
// admin edits a French translation in 'Add or Edit Translation' and a customer's next page view in
// French shows it (no restart); the missing keys of a new language are listed and one is added;
// the edit is in the audit trail with its before and after; axe on every page and dialog.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { BASE_URL, database, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const sql = database();
let browser: Browser;
let original: { id: number; value: string } | undefined;
const code = `zz-${Date.now().toString(36).replace(/[0-9]/g, '').slice(0, 4).padEnd(2, 'q')}`;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  // the shipped French text back, for the other tests (the trigger tells every web process)
  if (original) await sql`UPDATE translations SET value = ${original.value} WHERE id = ${original.id}`;
  await sql`DELETE FROM languages WHERE code = ${code}`;
  await browser?.close();
  await sql.end();
});

async function admin(): Promise<Page> {
  const page = await newPage(browser);
  await signIn(page, 'admin@demo.broker', 'Demo-1234');
  await page.waitForURL('**/admin');
  return page;
}
const toast = (page: Page, text: string) => page.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });

describe('translations', () => {
  test('an admin edits a translation and the next page view shows it', async () => {
    const [row] = await sql`SELECT id, value FROM translations WHERE language_code = 'fr' AND key = 'Home'`;
    original = { id: Number(row.id), value: row.value };
    // a customer reading French sees the shipped text
    const customer = await newPage(browser);
    await signIn(customer, 'alice@demo.broker', 'Demo-1234');
    await customer.waitForURL('**/dashboard');
    await customer.context().addCookies([{ name: 'lang', value: 'fr', url: BASE_URL }]);
    await customer.goto('/dashboard');
    await expect.poll(() => customer.locator('html').getAttribute('lang')).toBe('fr');
    const nav = customer.getByRole('navigation', { name: /.+/ }).first();
    await nav.getByRole('link', { name: original.value, exact: true }).waitFor();

    const page = await admin();
    await page.goto('/admin/languages');
    await page.getByRole('heading', { name: 'Languages' }).waitFor();
    await expectNoAxeViolations(page);
    await page.getByRole('link', { name: 'Translations of Français' }).click();
    await page.waitForURL('**/admin/languages/fr');
    await page.getByRole('heading', { name: 'fr' }).waitFor();
    await expectNoAxeViolations(page);

    await page.goto('/admin/languages/fr?search=Home');
    const tr = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Home', exact: true }) });
    await tr.getByRole('button', { name: `Edit translation #${original.id}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Add or Edit Translation' });
    await dialog.waitFor();
    await expectNoAxeViolations(page);
    // the value is required, in the browser and on the server
    await dialog.getByLabel('Value').fill('');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await dialog.getByText('Value is required').waitFor();
    await dialog.getByLabel('Value').fill('Accueil E2E');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Translation updated successfully').waitFor();
    await dialog.waitFor({ state: 'detached' });
    await tr.getByText('Accueil E2E').waitFor();

    // the customer's next page view, same server, no restart
    await customer.goto('/statements');
    await nav.getByRole('link', { name: 'Accueil E2E', exact: true }).waitFor();

    // the edit is in the audit trail, before and after
    await page.goto(`/admin/audit?targetKind=translation&targetId=${original.id}`);
    await page.getByRole('heading', { name: 'Audit Trail' }).waitFor();
    const event = page.getByRole('row').filter({ hasText: 'translation.update' }).first();
    await event.waitFor();
    await event.getByRole('button', { name: '1 changed' }).click();
    const diff = page.getByRole('region', { name: /Changes of event #\d+/ });
    await diff.getByText(original.value, { exact: true }).waitFor();
    await diff.getByText('Accueil E2E', { exact: true }).waitFor();
    await expectNoAxeViolations(page);
    await customer.context().close();
    await page.context().close();
  }, 120_000);

  test('a new language lists its missing texts, one is added from the list; an unknown code is a 404', async () => {
    const page = await admin();
    await page.goto('/admin/languages');
    await page.getByRole('button', { name: 'Add Language' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add Language' });
    await dialog.getByLabel('Name').fill('E2E Zed');
    await dialog.getByLabel('Code').fill('not a code');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await dialog.getByText('Code must be a language code such as en, fr or pt-BR').waitFor();
    await dialog.getByLabel('Code').fill(code);
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Languages updated successfully').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'E2E Zed' });
    await row.getByRole('link', { name: /missing/ }).click();
    await page.waitForURL((u) => u.pathname === `/admin/languages/${code}`);
    const missing = page.locator('#missing');
    await missing.getByText(/texts have no translation/).waitFor();
    const before = Number((await missing.locator('summary').textContent())!.replace(/\D/g, ''));
    await expectNoAxeViolations(page);
    const first = missing.locator('li').first();
    const key = (await first.locator('.translation-text').textContent())!;
    await first.getByRole('button', { name: 'Add' }).click();
    const add = page.getByRole('dialog', { name: 'Add or Edit Translation' });
    expect(await add.getByLabel('Key').inputValue()).toBe(key);
    await add.getByLabel('Value').fill(`${key} (zz)`); // the key's placeholders kept
    await add.getByRole('button', { name: 'Submit' }).click();
    await toast(page, 'Translation added successfully').waitFor();
    await expect.poll(async () => Number((await missing.locator('summary').textContent())!.replace(/\D/g, ''))).toBe(before - 1);

    const res = await page.goto('/admin/languages/xx-nope');
    expect(res?.status()).toBe(404);
    await page.context().close();
  }, 90_000);
});
