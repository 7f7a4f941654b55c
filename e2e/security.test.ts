// /security in Chromium: a customer changes their password (a wrong current one is refused, the
// other session ends), turns two-factor sign-in on (the code computed here from the key the page
// shows), saves the recovery codes, signs out, and signs in with a code, then with a recovery code.
// axe-core on the page in each state.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { database, insertUser, launch, newPage, signInThroughForm as signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const sql = database();
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

const codeAt = (secret: string, timestamp: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp });

describe('security page in Chromium', () => {
  test('change password → enrol two-factor → sign out → sign in with a code, then with a recovery code', async () => {
    const user = await insertUser(sql, { password: 'Old-password-1', fullName: 'Sam Secure' });
    const page = await newPage(browser);
    const elsewhere = await newPage(browser);
    await signIn(elsewhere, user.email, 'Old-password-1');
    await elsewhere.waitForURL('**/dashboard');
    await signIn(page, user.email, 'Old-password-1');
    await page.waitForURL('**/dashboard');

    await page.goto('/security');
    await page.getByRole('heading', { name: 'Change Password' }).waitFor();
    await page.waitForLoadState('networkidle');
    await expectNoAxeViolations(page);

    // a wrong current password: refused under its field, once (no toast repeats it), nothing changes
    await page.getByLabel('Current Password').fill('Wrong-password-9');
    await page.getByLabel('New Password').fill('New-password-2');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.locator('.field-error', { hasText: 'Current password is incorrect' }).waitFor();
    await page.waitForTimeout(300);
    expect(await page.locator('.toaster-bottom-right').getByText('Current password is incorrect').count()).toBe(0);
    await expectNoAxeViolations(page);

    await page.getByLabel('Current Password').fill('Old-password-1');
    await page.getByLabel('New Password').fill('New-password-2');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.locator('.toaster-bottom-right').getByText('Password updated successfully').waitFor();
    expect(await page.getByLabel('Current Password').inputValue()).toBe('');
    // the other browser's session ended; this one goes on
    await elsewhere.goto('/dashboard');
    await elsewhere.waitForURL((url) => url.pathname === '/');
    await elsewhere.context().close();

    // two-factor: QR and key (a set-up can be cancelled), then a code from the "app"
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByRole('img', { name: 'QR code that adds this account to your authenticator app' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('.toaster-bottom-right').getByText('Two-factor set-up cancelled').waitFor();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByRole('img', { name: 'QR code that adds this account to your authenticator app' }).waitFor();
    const secret = (await page.locator('.totp-secret').textContent())!.replace(/\s+/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await expectNoAxeViolations(page);
    await page.getByLabel('Code from your app').fill(codeAt(secret, Date.now()));
    await page.getByRole('button', { name: 'Verify and turn on' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save your recovery codes' });
    await dialog.waitFor();
    const recovery = (await dialog.locator('.recovery-codes code').allTextContents()).map((c) => c.trim());
    expect(recovery).toHaveLength(10);
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'I have saved them' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Recovery codes left: 10').waitFor();
    await expectNoAxeViolations(page);

    // sign out; the new password alone is not enough any more
    await page.getByRole('button', { name: 'Log Out' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await signIn(page, user.email, 'New-password-2');
    await page.waitForURL('**/two-factor');
    await expectNoAxeViolations(page);
    await page.getByLabel('Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('.field-error', { hasText: 'The code is not valid or was already used.' }).waitFor();
    // the enrolment's code is spent: the next time step's code (accepted one step early)
    await page.getByLabel('Authentication code').fill(codeAt(secret, Date.now() + 30_000));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/dashboard');

    // again, with a recovery code, which is then used up
    await page.getByRole('button', { name: 'Log Out' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await signIn(page, user.email, 'New-password-2');
    await page.waitForURL('**/two-factor');
    await page.getByLabel('Authentication code').fill(recovery[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/dashboard');
    await page.goto('/security');
    await page.getByText('Recovery codes left: 9').waitFor();
    const [row] = await sql`SELECT count(*)::int AS n FROM user_recovery_codes WHERE user_id = ${user.id} AND used_at IS NOT NULL`;
    expect(row.n).toBe(1);
    await page.context().close();
  }, 150_000); // one long flow of about a dozen pages: a loaded machine took it past the default 60 s
});
