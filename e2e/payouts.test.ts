// A withdrawal paid out through PayPal in real Chromium against the stack started with MOCKS=1
// (scripts/test.ts): PayPal is the msw mock of the web process (web/test/mocks/payments.ts and
// providers/paypal-payouts.ts). The customer once paid a PayPal deposit (its verified capture named
// their payer id); an admin approves their withdrawal on /admin/withdraws/pending choosing "Pay out
// through PayPal" and sees the payout sent (its PayPal payout id) on the withdrawal in the history,
// then checks its status (paid) and opens its events.
// Then a Flutterwave bank payout: a Nigerian customer's naira withdrawal, approved with the bank
// picked from Flutterwave's (mock) list next to the bank name the customer typed, the account
// holder's name Flutterwave resolves shown first.
// axe-core on the list, the dialogs and the history. SCREENSHOT_DIR=… saves the pages at 1440 and 390 px.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const PASSWORD = 'E2e-pass-1234';
const PAYER = 'MOCKPAYER7QX2L'; // the mock PayPal's payer id (web/test/mocks/payments.ts)
const sql = database();
let browser: Browser;
let before: Record<string, unknown> | undefined;
let flwBefore: Record<string, unknown> | undefined;

beforeAll(async () => {
  browser = await launch();
  [before] = await sql`SELECT key1, key2, key3, key4, is_active FROM payment_gateways WHERE name = 'paypal'`;
  await sql`UPDATE payment_gateways SET key1 = 'mock-client-id', key2 = 'mock-client-secret', key3 = 'sandbox', key4 = 'MOCKWEBHOOK0001', is_active = true WHERE name = 'paypal'`;
  [flwBefore] = await sql`SELECT key1, key2, key3, is_active FROM payment_gateways WHERE name = 'flutterwave'`;
  // the mock Flutterwave's keys (web/test/mocks/providers/flutterwave.ts)
  await sql`UPDATE payment_gateways SET key1 = 'FLWPUBK_TEST-mock-X', key2 = 'FLWSECK_TEST-mock-X', key3 = 'mock-flw-secret-hash', is_active = true WHERE name = 'flutterwave'`;
});
afterAll(async () => {
  if (before) {
    await sql`UPDATE payment_gateways SET key1 = ${before.key1 as string | null}, key2 = ${before.key2 as string | null}, key3 = ${before.key3 as string | null},
                key4 = ${before.key4 as string | null}, is_active = ${before.is_active as boolean} WHERE name = 'paypal'`;
  }
  if (flwBefore) {
    await sql`UPDATE payment_gateways SET key1 = ${flwBefore.key1 as string | null}, key2 = ${flwBefore.key2 as string | null}, key3 = ${flwBefore.key3 as string | null},
                is_active = ${flwBefore.is_active as boolean} WHERE name = 'flutterwave'`;
  }
  await browser?.close();
  await sql.end();
});

/** A customer whose PayPal deposit was captured (PayPal named the payer) and who asks to withdraw 75 USD (held). */
async function customerWithWithdrawal() {
  const u = await insertUser(sql, { password: PASSWORD, fullName: 'Pablo Payout' });
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  await sql`SELECT * FROM post_ledger(${b.id}, 200, 'adjustment', 'e2e', ${`po-${b.id}`})`;
  const [d] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total, description, status, reference, decided_at)
                        VALUES (${u.id}, ${b.id}, 'paypal', 200, 0, 200, 'PayPal', 'approved', ${`ORDER${b.id}`}, now()) RETURNING id`;
  await sql`INSERT INTO payment_events (deposit_id, gateway, event_id, kind, state, amount, currency, outcome, raw)
            VALUES (${d.id}, 'paypal', ${`capture:e2e-${d.id}`}, 'capture', 'paid', 200, 'USD', 'applied', ${sql.json({ providerRef: `ORDER${b.id}`, payerAccount: PAYER })})`;
  const details = { bankName: 'Banque Populaire', accountName: 'Pablo Payout', accountNumber: 'FR7630006000011234567890189', swiftCode: 'CCBPFRPP', bankCountry: 'France' };
  const [w] = await sql`INSERT INTO withdrawals (user_id, balance_id, gateway, amount, fee, total, description, details)
                        VALUES (${u.id}, ${b.id}, 'bank', 75, 0, 75, 'Banque Populaire', ${sql.json(details)}) RETURNING id`;
  await sql`SELECT * FROM post_ledger(${b.id}, -75, 'withdrawal', 'withdrawal', ${String(w.id)}, ${u.id}, 'withdrawal request: total held')`;
  return { ...u, withdrawalId: Number(w.id) };
}

/** Saves the page at 1440 and 390 px wide when SCREENSHOT_DIR is set. */
async function shoot(page: Page, name: string) {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${dir}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

describe('payouts', () => {
  test('an admin approves a withdrawal paying it out through PayPal and sees the payout on the withdrawal', async () => {
    const c = await customerWithWithdrawal();
    const admin = await insertUser(sql, { password: PASSWORD, roleId: 1 });
    const staff = await newPage(browser);
    await signIn(staff, admin.email, PASSWORD);
    await staff.waitForURL((u) => u.pathname !== '/');

    await staff.goto(`/admin/withdraws/pending?search=${c.withdrawalId}`);
    const row = staff.getByRole('row').filter({ hasText: c.email });
    await row.waitFor();
    expect(await row.textContent()).not.toContain('Payout:'); // none yet
    await staff.getByRole('button', { name: `Approve withdrawal #${c.withdrawalId}` }).click();
    const dialog = staff.getByRole('dialog', { name: 'Approve withdrawal' });
    await dialog.getByRole('radio', { name: 'Pay out through PayPal' }).check();
    expect(await dialog.getByRole('radio', { name: 'Pay manually' }).isChecked()).toBe(false);
    await expectNoAxeViolations(staff);
    await shoot(staff, 'payout-approve');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await staff.getByRole('status').filter({ hasText: 'Withdraw approved and sent for payout' }).waitFor();
    await dialog.waitFor({ state: 'detached' });

    const [p] = await sql`SELECT status, receiver, provider_ref FROM withdrawal_payouts WHERE withdrawal_id = ${c.withdrawalId}`;
    expect(p).toMatchObject({ status: 'sent', receiver: PAYER });

    // the withdrawal in the history: approved, paid out through PayPal, sent, with PayPal's payout id
    await staff.goto('/admin/withdraws/history?status=approved');
    const done = staff.getByRole('row').filter({ hasText: c.email });
    await done.getByText(`Payout ID ${p.provider_ref}`).waitFor();
    expect(await done.textContent()).toMatch(/Payout: PayPal\s*Sent/);
    await expectNoAxeViolations(staff);
    await shoot(staff, 'payout-history');
    if (process.env.SCREENSHOT_DIR) {
      // at 390 px the table scrolls sideways: the status cell with its payout, scrolled into view
      await staff.setViewportSize({ width: 390, height: 900 });
      await done.getByText('Payout: PayPal').scrollIntoViewIfNeeded();
      await staff.screenshot({ path: `${process.env.SCREENSHOT_DIR}/payout-history-390-status.png` });
      await staff.setViewportSize({ width: 1440, height: 900 });
    }
    // 'Check status': PayPal says the payout is paid
    await done.getByRole('button', { name: `Check status of the payout of withdrawal #${c.withdrawalId}` }).click();
    await staff.getByRole('status').filter({ hasText: 'The payout is paid' }).waitFor();
    await done.getByText('Paid', { exact: true }).waitFor();
    await expectNoAxeViolations(staff);
    // its events: PayPal's answer to the request, then the status check
    await done.getByRole('button', { name: `Payout events of withdrawal #${c.withdrawalId}` }).click();
    const events = staff.getByRole('dialog', { name: `Payout events of withdrawal #${c.withdrawalId}` });
    await events.getByText('Payout request').waitFor();
    await events.getByText('Status check').waitFor();
    await shoot(staff, 'payout-events');
    await expectNoAxeViolations(staff);
    await staff.context().close();
  });

  test('an admin pays a Nigerian withdrawal out through Flutterwave, picking the bank from Flutterwave\'s list', async () => {
    const u = await insertUser(sql, { password: PASSWORD, fullName: 'Ngozi Payout' });
    const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'NGN') RETURNING id`;
    await sql`SELECT * FROM post_ledger(${b.id}, 90000, 'adjustment', 'e2e', ${`flw-${b.id}`})`;
    const details = { bankName: 'access bank plc', accountName: 'Ngozi Payout', accountNumber: '0690000032', swiftCode: 'ABNGNGLA', bankCountry: 'Nigeria' };
    const [w] = await sql`INSERT INTO withdrawals (user_id, balance_id, gateway, amount, fee, total, description, details)
                          VALUES (${u.id}, ${b.id}, 'bank', 25000, 0, 25000, 'access bank plc', ${sql.json(details)}) RETURNING id`;
    await sql`SELECT * FROM post_ledger(${b.id}, -25000, 'withdrawal', 'withdrawal', ${String(w.id)}, ${u.id}, 'withdrawal request: total held')`;
    const admin = await insertUser(sql, { password: PASSWORD, roleId: 1 });
    const staff = await newPage(browser);
    await signIn(staff, admin.email, PASSWORD);
    await staff.waitForURL((x) => x.pathname !== '/');

    await staff.goto(`/admin/withdraws/pending?search=${w.id}`);
    await staff.getByRole('row').filter({ hasText: u.email }).waitFor();
    await staff.getByRole('button', { name: `Approve withdrawal #${w.id}` }).click();
    const dialog = staff.getByRole('dialog', { name: 'Approve withdrawal' });
    await dialog.getByRole('radio', { name: 'Pay out through Flutterwave' }).check();
    const picker = dialog.getByLabel("The customer's bank at Flutterwave");
    await picker.waitFor();
    await dialog.getByText('access bank plc · Nigeria').waitFor();
    await picker.selectOption({ label: 'Access Bank' });
    await dialog.getByRole('button', { name: 'Check the account name' }).click();
    await dialog.getByText('Flutterwave names this account: Pastor Bright').waitFor();
    // not the holder's name on the withdrawal: the approver is told so
    await dialog.getByText("This is not the account holder's name on the withdrawal: check the bank before approving").waitFor();
    await expectNoAxeViolations(staff);
    await shoot(staff, 'payout-flutterwave-approve');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await staff.getByRole('status').filter({ hasText: 'Withdraw approved and sent for payout' }).waitFor();
    await dialog.waitFor({ state: 'detached' });
    const [p] = await sql`SELECT status, receiver, destination FROM withdrawal_payouts WHERE withdrawal_id = ${w.id}`;
    expect(p).toMatchObject({ status: 'sent', receiver: '0690000032', destination: { bankCode: '044', bankName: 'Access Bank', country: 'NG' } });
    // on the history: the bank it went to; Check status asks Flutterwave (the mock pays it)
    await staff.goto('/admin/withdraws/history?status=approved');
    const done = staff.getByRole('row').filter({ hasText: u.email });
    await done.getByText('To Access Bank · 0690000032').waitFor();
    expect(await done.textContent()).toMatch(/Payout: Flutterwave\s*Sent/);
    await done.getByRole('button', { name: `Check status of the payout of withdrawal #${w.id}` }).click();
    await staff.getByRole('status').filter({ hasText: 'The payout is paid' }).waitFor();
    await expectNoAxeViolations(staff);
    await shoot(staff, 'payout-flutterwave-history');
    await staff.context().close();
  });
});
