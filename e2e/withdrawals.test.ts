// A withdrawal end to end in real Chromium against the running stack: a customer requests a
// bank withdrawal and the total leaves the balance at once (the hold) → an admin declines it
// with a reason on /admin/withdraws/pending → the customer's history shows the reason (Show
// Reason, a keyboard popover) and the exact amount is back. axe-core on every page touched.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';
import { withdrawFee } from '../web/app/modules/money/fees.ts';
import { formatMoney } from '../web/app/components/ui/format.ts';

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

/** A customer with one real USD wallet of `funds`, active, KYC approved. */
async function customer(funds: string) {
  const u = await insertUser(sql, { password: PASSWORD, fullName: 'Wanda Withdraw' });
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  await sql`SELECT * FROM post_ledger(${b.id}, ${funds}, 'adjustment', 'e2e', ${`wd-${b.id}`})`;
  await sql`UPDATE users SET active_balance_id = ${b.id} WHERE id = ${u.id}`;
  await sql`INSERT INTO kyc_documents (user_id, type, status, decided_at) VALUES (${u.id}, 'passport', 'approved', now())`;
  return { ...u, balanceId: Number(b.id) };
}

const balanceOf = async (id: number) => (await sql`SELECT balance::text AS b FROM balances WHERE id = ${id}`)[0].b as string;
const usd = (v: string) => formatMoney(v, 'USD', 'en');

async function signedIn(email: string): Promise<Page> {
  const page = await newPage(browser);
  await signIn(page, email, PASSWORD);
  await page.waitForURL((u) => u.pathname !== '/');
  return page;
}

describe('withdrawals', () => {
  test('request → the total is held at once → an admin declines with a reason → the reason in the history and the exact money back', async () => {
    const c = await customer('1000');
    const [fees] = await sql`SELECT fee_percentage::text AS p, fee_fixed::text AS f FROM withdraw_fee_settings WHERE id = 1`;
    const want = withdrawFee('123.45', fees.p, fees.f);
    const after = (1000 - Number(want.total)).toFixed(2);

    // the customer's form: the live summary from the admin's fees, then the request
    const page = await signedIn(c.email);
    await page.goto('/withdraws');
    await page.getByRole('heading', { name: 'Bank withdrawal' }).waitFor();
    await expectNoAxeViolations(page);
    await expect.poll(() => page.getByLabel('Account name').inputValue()).toBe('Wanda Withdraw');
    expect(await page.getByLabel('Account name').getAttribute('readonly')).not.toBeNull();
    expect(await page.getByTestId('summary-free-margin').textContent()).toBe(usd('1000'));
    await page.getByLabel('Amount', { exact: true }).fill('123.45');
    await expect.poll(() => page.getByTestId('summary-total').textContent()).toBe(usd(want.total));
    expect(await page.getByTestId('summary-fee').textContent()).toBe(usd(want.fee));
    expect(await page.getByTestId('summary-amount').textContent()).toBe(usd('123.45'));
    await page.getByLabel('Bank name').fill('Banque Populaire');
    await page.getByLabel('Account number').fill('FR76 3000 6000 0112 3456 7890 189');
    await page.getByLabel('Swift code').fill('ccbpfrpp');
    await page.getByLabel('Bank country').selectOption('France');
    await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Withdraw request submitted successfully' }).waitFor();

    // held at once: the balance, the free margin on the page and the top bar's wallet
    expect(await balanceOf(c.balanceId)).toBe(`${after}000000`);
    await expect.poll(() => page.getByTestId('summary-free-margin').textContent()).toBe(usd(after));
    await expect.poll(() => page.locator('#wallet-select option:checked').textContent()).toContain(usd(after));
    expect(await page.getByLabel('Amount', { exact: true }).inputValue()).toBe(''); // the form starts again
    const [w] = await sql`SELECT id, status, total::text AS total, details FROM withdrawals WHERE user_id = ${c.id}`;
    expect(w).toMatchObject({ status: 'pending', total: want.total });
    expect(w.details).toMatchObject({ accountName: 'Wanda Withdraw', swiftCode: 'CCBPFRPP', bankCountry: 'France' });

    // the history: the row with its bank details in a keyboard popover
    await page.getByRole('tab', { name: 'History' }).click();
    await page.waitForURL('**/withdraws?tab=history');
    const details = page.getByRole('button', { name: `Details of withdrawal #${w.id}` });
    await details.click();
    const bank = page.getByRole('region', { name: 'Bank details' });
    await bank.getByText('CCBPFRPP').waitFor();
    await expectNoAxeViolations(page);
    await page.keyboard.press('Escape');
    await bank.waitFor({ state: 'hidden' });

    // the admin declines it with a reason (required)
    const admin = await insertUser(sql, { password: PASSWORD, roleId: 1 });
    const staff = await signedIn(admin.email);
    await staff.goto(`/admin/withdraws/pending?search=${encodeURIComponent(c.email)}`);
    const row = staff.getByRole('row').filter({ hasText: c.email });
    await row.waitFor();
    expect(await row.textContent()).toContain(usd(want.total));
    await expectNoAxeViolations(staff);
    await staff.getByRole('button', { name: `Decline withdrawal #${w.id}` }).click();
    const dialog = staff.getByRole('dialog', { name: 'Decline withdrawal' });
    await dialog.getByRole('button', { name: 'Decline' }).click();
    await dialog.getByText('Decline reason is required').waitFor();
    await expectNoAxeViolations(staff);
    await dialog.getByLabel('Decline Reason').fill('The account holder name does not match');
    await dialog.getByRole('button', { name: 'Decline' }).click();
    await staff.getByRole('status').filter({ hasText: 'Withdraw declined successfully' }).waitFor();
    await dialog.waitFor({ state: 'detached' });
    await staff.getByText('No data found').waitFor(); // no longer pending

    // the money is back, to the cent
    expect(await balanceOf(c.balanceId)).toBe('1000.00000000');

    // the customer's history shows the decline and its reason
    await page.reload();
    const declinedRow = page.getByRole('row').filter({ hasText: usd(want.total) }).first();
    await declinedRow.getByText('Declined').waitFor();
    const show = page.getByRole('button', { name: `Show Reason of withdrawal #${w.id}` });
    await show.focus();
    await page.keyboard.press('Enter');
    const reason = page.getByRole('region', { name: 'Decline Reason' });
    await reason.getByText('The account holder name does not match').waitFor();
    expect(await show.getAttribute('aria-expanded')).toBe('true');
    await expectNoAxeViolations(page);
    await page.keyboard.press('Escape');
    await reason.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain('Show Reason');
    await expect.poll(() => page.locator('#wallet-select option:checked').textContent()).toContain(usd('1000'));

    // the other staff pages pass axe too
    await staff.goto('/admin/withdraws/history?status=declined');
    await staff.getByRole('row').filter({ hasText: c.email }).getByText('The account holder name does not match').waitFor();
    await expectNoAxeViolations(staff);
    await staff.goto('/admin/withdraws/settings');
    await staff.getByLabel('Fee (%)').waitFor();
    await expectNoAxeViolations(staff);
    await page.context().close();
    await staff.context().close();
  });
});
