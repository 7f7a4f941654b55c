// KYC end to end in Chromium against the running stack: a customer uploads a document (a front
// image drawn in the page), sees 'KYC Submitted' pending (then 'KYC Approved') and the dashboard's KYC notice; an admin
// approves it on /admin/kyc; the customer is told live and, on the next load, the notice is gone.
// The notice shown is the dashboard's (the KYC trade switch, off in the demo, is turned on here and
// put back after): every KYC notice follows the same rule (money.server.ts isKycApproved).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const PASSWORD = 'E2e-pass-1234';
const NOTICE = 'Please verify KYC to enable trading.';
const sql = database();
let browser: Browser;
let kycBefore: unknown = null;

beforeAll(async () => {
  browser = await launch();
  const [row] = await sql`SELECT value FROM site_settings WHERE key = 'kyc'`;
  kycBefore = row?.value ?? null;
  const value = { deposit: 'off', withdraw: 'off', ...(kycBefore as object | null), trade: 'on' };
  await sql`INSERT INTO site_settings (key, value) VALUES ('kyc', ${sql.json(value)})
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
});
afterAll(async () => {
  if (kycBefore === null) await sql`DELETE FROM site_settings WHERE key = 'kyc'`;
  else await sql`UPDATE site_settings SET value = ${sql.json(kycBefore as never)} WHERE key = 'kyc'`;
  await browser?.close();
  await sql.end();
});

/** A PNG drawn by the page's canvas: what a phone camera would hand the file input. */
async function drawnPng(page: Page): Promise<Buffer> {
  const b64 = await page.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = 320;
    c.height = 200;
    const x = c.getContext('2d')!;
    x.fillStyle = '#1f6feb';
    x.fillRect(0, 0, 320, 200);
    x.fillStyle = '#fff';
    x.font = '28px sans-serif';
    x.fillText('PASSPORT', 20, 50);
    return c.toDataURL('image/png').split(',')[1];
  });
  return Buffer.from(b64, 'base64');
}

describe('KYC', () => {
  test('a customer uploads, an admin approves, the KYC notice is gone on the next load', async () => {
    const name = `Kyc E2e ${Date.now().toString(36)}`;
    const u = await insertUser(sql, { password: PASSWORD, fullName: name });
    const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
    await sql`UPDATE users SET active_balance_id = ${b.id}, pricing_plan_id = (SELECT min(id) FROM pricing_plans) WHERE id = ${u.id}`;

    // the customer: the form, then the pending card
    const page = await newPage(browser);
    await signIn(page, u.email, PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto('/kyc');
    await page.getByRole('heading', { name: 'Verify your identity' }).waitFor();
    await expectNoAxeViolations(page);
    await page.getByLabel('Document Type').selectOption('passport');
    await page.getByLabel('Front Side').setInputFiles({ name: 'passport.png', mimeType: 'image/png', buffer: await drawnPng(page) });
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Documents submitted successfully').waitFor();
    await page.getByRole('heading', { name: 'KYC Submitted' }).waitFor();
    expect(await page.getByTestId('kyc-status').textContent()).toBe('Pending');
    await expectNoAxeViolations(page);
    const [doc] = await sql`SELECT k.id, k.status, f.kind, f.mime FROM kyc_documents k JOIN uploads f ON f.id = k.front_upload_id WHERE k.user_id = ${u.id}`;
    expect(doc).toMatchObject({ status: 'pending', kind: 'kyc_front', mime: 'image/png' });

    // the dashboard asks for verification, and its live stream is open
    await page.goto('/dashboard');
    await page.getByText(NOTICE).waitFor();
    await page.getByText('Live', { exact: true }).waitFor();

    // the admin finds the document and approves it
    const admin = await newPage(browser);
    await signIn(admin, 'admin@demo.broker', 'Demo-1234');
    await admin.waitForURL((url) => url.pathname !== '/');
    await admin.goto('/admin/kyc?status=pending');
    await admin.getByRole('searchbox', { name: 'Search' }).fill(name.toLowerCase());
    await admin.waitForURL((url) => url.searchParams.get('search') === name.toLowerCase());
    const row = admin.getByRole('row').filter({ hasText: u.email });
    await row.waitFor();
    expect(await admin.getByRole('row').count()).toBe(2); // the header and this document
    // the front side opens in the viewer, served to staff through /uploads
    await row.getByRole('button', { name: `Front Side: ${name}` }).click();
    const viewer = admin.getByRole('dialog', { name: `Front Side: ${name}` });
    await expect.poll(() => viewer.locator("img").evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth)).toBe(320);
    await expectNoAxeViolations(admin);
    await viewer.getByRole('button', { name: 'Close' }).click();
    await expectNoAxeViolations(admin);
    await row.getByRole('button', { name: `Approve: ${name}` }).click();
    const confirm = admin.getByRole('dialog', { name: 'Approve' });
    await confirm.getByRole('button', { name: 'Approve' }).click();
    await admin.getByText('Document approved successfully').waitFor();
    await confirm.waitFor({ state: 'detached' });
    // approved: Approve is no longer offered, Decline still is
    await admin.goto(`/admin/kyc?search=${encodeURIComponent(name.toLowerCase())}`);
    const approved = admin.getByRole('row').filter({ hasText: u.email });
    expect(await approved.getByTestId('kyc-status').textContent()).toBe('Approved');
    expect(await approved.getByRole('button', { name: `Approve: ${name}` }).count()).toBe(0);
    expect(await approved.getByRole('button', { name: `Decline: ${name}` }).count()).toBe(1);

    // the customer is told live, and the next load has no KYC notice
    await page.getByRole('status').filter({ hasText: 'KYC approved' }).waitFor();
    await page.reload();
    await page.getByText('Live', { exact: true }).waitFor();
    expect(await page.getByText(NOTICE).count()).toBe(0);
    await page.goto('/kyc');
    await page.getByRole('heading', { name: 'KYC Approved' }).waitFor(); // no longer 'Submitted' once approved
    expect(await page.getByTestId('kyc-status').textContent()).toBe('Approved');
    expect(await page.locator('.kyc-card').getByText('Your identity is verified.').count()).toBe(1);

    // and another customer cannot read the file
    const other = await insertUser(sql, { password: PASSWORD });
    const stranger = await newPage(browser);
    await signIn(stranger, other.email, PASSWORD);
    await stranger.waitForURL('**/dashboard');
    const [front] = await sql`SELECT front_upload_id AS id FROM kyc_documents WHERE id = ${doc.id}`;
    expect((await stranger.request.get(`/uploads/${front.id}`)).status()).toBe(404);
    expect((await page.request.get(`/uploads/${front.id}`)).status()).toBe(200);
    for (const p of [page, admin, stranger]) await p.context().close();
  });
});
