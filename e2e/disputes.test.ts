// A chargeback of a Wipays deposit in real Chromium against the stack started with MOCKS=1
// (docs/specs.md "Chargebacks and refunds"): a customer deposits 300 USD through the Wipays mock
// checkout (credited by its signed IPN); then Wipays' signed `chargeback_initiated` IPN for that
// deposit is posted to the webhook as the provider would. The admin sees the 'Chargeback $300.00'
// flag on the row of /admin/deposits and the event in its Events dialog, debits it after the
// confirmation, and sees it debited; the wallet lost exactly 300.00 through one ledger entry
// ('deposit_dispute', id), and a second debit is neither offered nor accepted. axe-core on the
// page and on each dialog; no console error on any page of the customer's or the admin's (the
// deposit's result dialog, open on the first render, hydrates without a mismatch).
// SCREENSHOT_DIR=… also saves /admin/deposits with the flag at 1440 and 390 px.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { BASE_URL, database, insertUser, launch, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';
import { wipaysSignature } from '../web/app/modules/payments/adapters/wipays.server.ts';

const PASSWORD = 'E2e-pass-1234';
/**
 * The Wipays secret the stack verifies IPNs with: the gateway is left without keys here, so under
 * MOCKS=1 gatewayConfig hands the adapter the mocks' published keys, in memory
 * (modules/gateways/mock-keys.ts PUBLISHED_MOCK_KEYS = web/test/mocks/payments.ts MOCK_KEYS).
 */
const WIPAYS_SECRET = 'wp-secret-test';
const sql = database();

let browser: Browser;
let before: Record<string, unknown> | undefined;

beforeAll(async () => {
  browser = await launch();
  [before] = await sql`SELECT key1, key2, key3, key4, key5, fee::text AS fee, is_active FROM payment_gateways WHERE name::text = 'wipays'`;
  // no keys of its own (the mocks' in memory), no fee: the customer pays exactly what is credited
  await sql`UPDATE payment_gateways SET key1 = NULL, key2 = NULL, key3 = NULL, key4 = NULL, key5 = NULL, fee = 0, is_active = true WHERE name::text = 'wipays'`;
}, 60_000);

afterAll(async () => {
  if (before) {
    await sql`UPDATE payment_gateways SET key1 = ${before.key1 as string | null}, key2 = ${before.key2 as string | null}, key3 = ${before.key3 as string | null},
                key4 = ${before.key4 as string | null}, key5 = ${before.key5 as string | null}, fee = ${before.fee as string}, is_active = ${before.is_active as boolean}
              WHERE name::text = 'wipays'`;
  }
  await browser?.close();
  await sql.end();
});

/** A signed-in page at 1440 px whose console errors and uncaught exceptions are collected. */
async function signedIn(email: string, password: string): Promise<{ page: Page; errors: string[] }> {
  const ctx = await browser.newContext({ baseURL: BASE_URL, viewport: { width: 1440, height: 900 }, locale: 'en-US' });
  const page = await ctx.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    errors.push(`${page.url()}: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  await signIn(page, email, password);
  await page.waitForURL((url) => url.pathname !== '/');
  return { page, errors };
}

/** Saves the page at 1440 and 390 px wide when SCREENSHOT_DIR is set, `focus` scrolled into view (the table scrolls sideways at 390). */
async function shoot(p: Page, name: string, focus: Locator) {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  for (const width of [1440, 390]) {
    await p.setViewportSize({ width, height: 900 });
    await focus.scrollIntoViewIfNeeded();
    await p.screenshot({ path: `${dir}/${name}-${width}.png`, fullPage: true });
  }
  await p.setViewportSize({ width: 1440, height: 900 });
}

/** Wipays' IPN of a chargeback, as https://docs.wipays.com/ipn describes it, signed with the secret key. */
function chargebackIpn(identifier: string, amount: string) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    timestamp,
    body: JSON.stringify({
      identifier, status: 'success', timestamp, signature: wipaysSignature(identifier, timestamp, WIPAYS_SECRET),
      data: { trx: `WPCB${Date.now().toString(36).toUpperCase()}`, amount, currency: 'USD', type: 'chargeback_initiated', timestamp: new Date().toISOString().slice(0, 19).replace('T', ' ') },
    }),
  };
}

const balanceOf = async (wallet: number) => (await sql`SELECT balance::text AS b FROM balances WHERE id = ${wallet}`)[0].b as string;

describe('chargebacks (MOCKS=1)', () => {
  test('a credited Wipays deposit, its signed chargeback IPN → flagged on /admin/deposits with its event → debited once by the admin', async () => {
    // a customer with 1,000 USD deposits 300 through the Wipays mock checkout
    const u = await insertUser(sql, { password: PASSWORD, fullName: 'Chad Chargeback' });
    const [real] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
    const wallet = Number(real.id);
    await sql`SELECT * FROM post_ledger(${wallet}, 1000, 'adjustment', 'e2e', ${`fund-${wallet}`})`;
    await sql`UPDATE users SET active_balance_id = ${wallet} WHERE id = ${u.id}`;
    const { page, errors: customerErrors } = await signedIn(u.email, PASSWORD);
    await page.goto('/deposits');
    await page.getByRole('heading', { name: 'Deposits' }).waitFor();
    await page.getByLabel('Gateway').selectOption('wipays');
    await page.getByLabel(/^Amount/).fill('300');
    await page.getByRole('button', { name: 'Deposit', exact: true }).click();
    await page.waitForURL('**/payments/mock/wipays/**');
    await page.getByRole('heading', { name: 'Wipays (mock)' }).waitFor();
    expect(customerErrors).toEqual([]);
    await page.getByRole('button', { name: 'Pay 300.00 USD' }).click();
    await page.waitForURL('**/deposits?status=success&amount=300.00&currency=USD');
    await page.getByRole('dialog', { name: 'Deposit Successful' }).getByText('$300.00 was added to your account.').waitFor();
    // the result dialog, open on the page's first render, hydrates without an error
    await page.reload();
    await page.getByRole('dialog', { name: 'Deposit Successful' }).waitFor();
    expect(customerErrors).toEqual([]);
    const [d] = await sql`SELECT id, status, reference FROM deposits WHERE user_id = ${u.id} AND gateway = 'wipays'`;
    expect(d.status).toBe('approved');
    const id = Number(d.id);
    expect(d.reference).toBe(`dep-${id}`);
    expect(await balanceOf(wallet)).toBe('1300.00000000');

    // Wipays reports a chargeback of it: its IPN, signed, posted to the webhook as the provider does
    const ipn = chargebackIpn(d.reference as string, '300.00');
    const res = await fetch(`${BASE_URL}/payments/webhooks/wipays`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ipn.body });
    expect(res.status, await res.clone().text()).toBe(200);
    const [flag] = await sql`SELECT disputed_at IS NOT NULL AS flagged, dispute_kind, dispute_amount::text AS amount, dispute_state, dispute_debited_at FROM deposits WHERE id = ${id}`;
    expect(flag).toMatchObject({ flagged: true, dispute_kind: 'chargeback', amount: '300.00000000', dispute_state: 'open', dispute_debited_at: null });
    expect(await balanceOf(wallet)).toBe('1300.00000000'); // flagged, nothing debited by itself

    // the admin: the flag on the row, the event in its dialog
    const { page: admin, errors: adminErrors } = await signedIn('admin@demo.broker', 'Demo-1234');
    await admin.goto(`/admin/deposits?search=${id}`);
    const events = admin.getByRole('button', { name: `Payment events of deposit #${id}` });
    const row = admin.getByRole('row').filter({ has: events });
    await row.getByText('Approved', { exact: true }).waitFor();
    const flagChip = row.getByText('Chargeback $300.00', { exact: true });
    await flagChip.waitFor();
    const debit = row.getByRole('button', { name: `Debit the disputed amount of deposit #${id}` });
    await debit.waitFor();
    await expectNoAxeViolations(admin);
    await shoot(admin, 'disputes-e2e-admin-deposits', flagChip);

    await events.click();
    const dialog = admin.getByRole('dialog', { name: `Payment events of deposit #${id}` });
    const event = dialog.getByRole('row').filter({ hasText: `wipays:chargeback_initiated:dep-${id}:${ipn.timestamp}` });
    await event.getByRole('cell', { name: 'Chargeback', exact: true }).waitFor();
    await event.getByRole('cell', { name: '$300.00', exact: true }).waitFor();
    await event.getByText('Applied', { exact: true }).waitFor();
    // the deposit's own notification is there too
    await dialog.getByRole('row').filter({ has: admin.getByRole('cell', { name: 'Paid', exact: true }) }).getByText('Applied', { exact: true }).waitFor();
    await expectNoAxeViolations(admin);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Debit → the confirmation → the toast; the row says it was debited and offers no second debit
    await debit.click();
    const confirm = admin.getByRole('dialog', { name: 'Debit the disputed amount' });
    await confirm.getByText(`Debit $300.00 from the customer's wallet for deposit #${id}? This can be done once.`).waitFor();
    await expectNoAxeViolations(admin);
    await confirm.getByRole('button', { name: 'Debit', exact: true }).click();
    await admin.getByRole('status').filter({ hasText: 'Disputed amount debited' }).waitFor();
    await confirm.waitFor({ state: 'detached' });
    await row.getByText(/^Debited /).waitFor();
    await debit.waitFor({ state: 'detached' });
    await flagChip.waitFor();
    await expectNoAxeViolations(admin);

    // the wallet lost exactly the amount, through one 'reversal' entry of ('deposit_dispute', id) by the admin
    expect(await balanceOf(wallet)).toBe('1000.00000000');
    const entries = await sql`SELECT l.kind, l.amount::text AS amount, u.email FROM ledger_entries l LEFT JOIN users u ON u.id = l.actor_id
                              WHERE l.ref_kind = 'deposit_dispute' AND l.ref_id = ${String(id)}`;
    expect(entries).toEqual([{ kind: 'reversal', amount: '-300.00000000', email: 'admin@demo.broker' }]);

    // a second debit posted anyway (a stale page, a replayed request) is refused and changes nothing
    const again = await admin.request.post('/admin/deposits', { form: { intent: 'debitDispute', id: String(id) }, headers: { origin: BASE_URL } });
    expect(again.status()).toBe(409);
    expect(await again.text()).toContain('The disputed amount was already debited');
    expect(await balanceOf(wallet)).toBe('1000.00000000');
    expect((await sql`SELECT count(*)::int AS n FROM ledger_entries WHERE ref_kind = 'deposit_dispute' AND ref_id = ${String(id)}`)[0].n).toBe(1);
    // after a reload too: debited, no Debit button
    await admin.reload();
    await row.getByText(/^Debited /).waitFor();
    expect(await row.getByRole('button', { name: /^Debit the disputed amount/ }).count()).toBe(0);

    expect(adminErrors).toEqual([]);
    await page.context().close();
    await admin.context().close();
  }, 120_000);
});
