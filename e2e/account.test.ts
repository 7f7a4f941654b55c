// The customer's account pages in Chromium against the running stack: the profile edited (a field
// error under its field, then saved with the server's toast), and a customer without a plan held
// by the prompt that cannot be dismissed until they choose a plan, which is charged to the cent.
// axe-core (WCAG 2.1 AA) on both pages and on the open prompt.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const PASSWORD = 'E2e-pass-1234';
const sql = database();
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

/** A customer with a profile and a real USD wallet of `funds` (active). */
async function customer(funds: string, opts: { plan?: null } = {}) {
  const u = await insertUser(sql, { password: PASSWORD, fullName: 'Pat Profile', ...opts });
  await sql`INSERT INTO profiles (user_id, phone, birth_date, country, city, address, postal_code)
            VALUES (${u.id}, '+34 91 123 4567', '1985-03-09', 'Spain', 'Madrid', 'Calle Mayor 4', '28013')`;
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  if (funds !== '0') await sql`SELECT * FROM post_ledger(${b.id}, ${funds}, 'deposit', 'e2e', ${`acct-${b.id}`})`;
  await sql`UPDATE users SET active_balance_id = ${b.id} WHERE id = ${u.id}`;
  return { ...u, balanceId: Number(b.id) };
}

describe('account pages', () => {
  test('a customer edits their profile: a wrong birth date is shown under its field, a good save shows the toast', async () => {
    const c = await customer('0');
    const page = await newPage(browser);
    await signIn(page, c.email, PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto('/profile');
    await page.getByRole('heading', { name: 'Personal Information' }).waitFor();
    expect(await page.getByLabel('Email').inputValue()).toBe(c.email);
    expect(await page.getByLabel('Email').getAttribute('readonly')).not.toBeNull();
    expect(await page.getByLabel('Country').inputValue()).toBe('Spain');
    await expectNoAxeViolations(page);

    await page.getByLabel('Full Name').fill('Pat Edited');
    await page.getByLabel('City').fill('Sevilla');
    await page.getByLabel('Country').selectOption('Portugal');
    const year = new Date().getUTCFullYear() - 10;
    await page.getByLabel('Birth Date').fill(`${year}-06-01`);
    await page.getByLabel('Address').focus(); // blur: the field is validated
    await page.getByText('You must be at least 18 years old').waitFor();
    await expectNoAxeViolations(page); // with the field error shown
    await page.getByLabel('Birth Date').fill('1985-03-10');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Profile updated successfully').waitFor();

    const [row] = await sql`SELECT u.full_name, p.city, p.country, to_char(p.birth_date, 'YYYY-MM-DD') AS birth_date, p.phone
                              FROM users u JOIN profiles p ON p.user_id = u.id WHERE u.id = ${c.id}`;
    expect(row).toEqual({ full_name: 'Pat Edited', city: 'Sevilla', country: 'Portugal', birth_date: '1985-03-10', phone: '+34 91 123 4567' });
    await page.reload();
    expect(await page.getByLabel('City').inputValue()).toBe('Sevilla');
    await page.context().close();
  });

  test('a customer without a plan cannot dismiss the prompt, chooses a plan, and the price leaves the wallet to the cent', async () => {
    const [plan] = await sql`INSERT INTO pricing_plans (name, description, price, forex_leverage, forex_stopout)
                             VALUES (${`E2E Pro ${Date.now().toString(36)}`}, 'Priced to the cent.', 123.45, 200, 40) RETURNING id, name`;
    const c = await customer('500.00', { plan: null });
    const page = await newPage(browser);
    await signIn(page, c.email, PASSWORD);
    await page.waitForURL('**/dashboard');
    const prompt = page.getByRole('dialog', { name: 'Choose your plan' });
    await prompt.waitFor();
    await expectNoAxeViolations(page);

    // no close button; Escape and a click on the backdrop do nothing; the focus stays inside
    expect(await prompt.getByRole('button', { name: 'Close' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.mouse.click(5, 400);
    expect(await prompt.isVisible()).toBe(true);
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]'))).toBe(true);
    }
    // on every client page
    await page.goto('/profile');
    await prompt.waitFor();

    const card = prompt.getByRole('article', { name: plan.name });
    expect(await card.getByText('$123.45').count()).toBe(1);
    await card.getByRole('button', { name: `Choose ${plan.name}` }).click();
    expect(await prompt.getByTestId('plan-charge').textContent()).toBe('$123.45');
    await expectNoAxeViolations(page);
    await prompt.getByLabel('Pay from').selectOption(String(c.balanceId));
    await prompt.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(`You are now on the ${plan.name} plan`).waitFor();
    await prompt.waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe('/profile');

    const [b] = await sql`SELECT balance::text AS balance FROM balances WHERE id = ${c.balanceId}`;
    expect(b.balance).toBe('376.55000000');
    const entries = await sql`SELECT amount::text AS amount FROM ledger_entries WHERE balance_id = ${c.balanceId} AND kind = 'plan_subscription'`;
    expect(entries.map((e) => e.amount)).toEqual(['-123.45000000']);
    const [u] = await sql`SELECT pricing_plan_id FROM users WHERE id = ${c.id}`;
    expect(Number(u.pricing_plan_id)).toBe(Number(plan.id));

    // /pricing: the plan chosen is the current one, its button disabled
    await page.goto('/pricing');
    const current = page.getByRole('article', { name: plan.name });
    await current.getByText('Current plan').first().waitFor();
    expect(await current.getByRole('button', { name: 'Current plan' }).isDisabled()).toBe(true);
    await expectNoAxeViolations(page);
    await page.context().close();
  });

  test('a plan the wallet cannot pay sends the customer to /deposits with "Not enough balance", where no prompt is in the way', async () => {
    const [plan] = await sql`INSERT INTO pricing_plans (name, price) VALUES (${`E2E Dear ${Date.now().toString(36)}`}, 900) RETURNING id, name`;
    const c = await customer('10.00', { plan: null });
    const page = await newPage(browser);
    await signIn(page, c.email, PASSWORD);
    await page.waitForURL('**/dashboard');
    const prompt = page.getByRole('dialog', { name: 'Choose your plan' });
    await prompt.getByRole('button', { name: `Choose ${plan.name}` }).click();
    await prompt.getByText('The free margin of this wallet does not cover the price.').waitFor();
    await prompt.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL('**/deposits');
    await page.getByText('Not enough balance').waitFor();
    expect(await prompt.count()).toBe(0);
    const [b] = await sql`SELECT balance::text AS balance FROM balances WHERE id = ${c.balanceId}`;
    expect(b.balance).toBe('10.00000000');
    await page.context().close();
  });
});
