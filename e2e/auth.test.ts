// Visitor flows in real Chromium against the running stack (E2E_BASE_URL, DATABASE_URL).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { database, insertUser, launch, linkFromOutbox, newPage, signInThroughForm as signIn, uniqueEmail } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const sql = database();
let browser: Browser;
let emailVerifyBefore: unknown;

beforeAll(async () => {
  browser = await launch();
  const [row] = await sql`SELECT value FROM site_settings WHERE key = 'emailVerify'`;
  emailVerifyBefore = row?.value ?? null;
});
afterAll(async () => {
  if (emailVerifyBefore === null) await sql`DELETE FROM site_settings WHERE key = 'emailVerify'`;
  else await sql`UPDATE site_settings SET value = ${sql.json(emailVerifyBefore as never)} WHERE key = 'emailVerify'`;
  await browser?.close();
  await sql.end();
});

describe('visitor flows in Chromium', () => {
  test('sign up → verify from the outbox → sign in → sign out', async () => {
    await sql`INSERT INTO site_settings (key, value) VALUES ('emailVerify', ${sql.json({ enabled: 'on' })})
              ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
    const page = await newPage(browser);
    const email = uniqueEmail('signup');
    await page.goto('/signup');
    await page.getByLabel('Full Name').fill('Erin Endtoend');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('Sturdy-pass-42');
    await page.getByLabel('Confirm Password').fill('Sturdy-pass-42');
    await page.getByLabel('Phone').fill('+33 1 23 45 67 89');
    await page.getByLabel('Birth Date').fill('1991-04-05');
    await page.getByLabel('Country').selectOption('France');
    await page.getByLabel('City').fill('Lyon');
    await page.getByLabel('Address').fill('2 Place Bellecour');
    await page.getByLabel('Postal Code').fill('69002');
    await page.getByRole('button', { name: 'Sign Up' }).click();
    const dialog = page.getByRole('dialog', { name: 'Account Created' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('verification email');
    // the form was reset
    expect(await page.getByLabel('Full Name').inputValue()).toBe('');

    // unverified: refused, with the toast at bottom-center
    await signIn(page, email, 'Sturdy-pass-42');
    await page.locator('.toaster-bottom-center').getByText('Please verify your email address before signing in.').waitFor();

    const link = await linkFromOutbox(sql, email, /https?:\/\/\S+\/verify-email\/\S+/);
    await page.goto(link);
    await page.getByText('Your email address has been verified').waitFor();
    await signIn(page, email, 'Sturdy-pass-42');
    await page.waitForURL('**/dashboard');
    const [u] = await sql`SELECT u.is_email_verified, (SELECT count(*)::int FROM balances b WHERE b.user_id = u.id) AS balances FROM users u WHERE email = ${email}`;
    expect(u).toMatchObject({ is_email_verified: true, balances: 2 });

    // a new customer has no plan: the prompt covers the page, its Log Out is the way out
    await page.getByRole('dialog', { name: 'Choose your plan' }).getByRole('button', { name: 'Log Out' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.goto('/dashboard');
    await page.waitForURL((url) => url.pathname === '/'); // the session is gone
    await page.context().close();
  });

  test('forgot → reset → sign in with the new password', async () => {
    const page = await newPage(browser);
    const user = await insertUser(sql, { password: 'Old-password-1' });
    await page.goto('/forgot-password');
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('dialog', { name: 'Verification Email Sent' }).waitFor();

    const link = await linkFromOutbox(sql, user.email, /https?:\/\/\S+\/reset-password\/\S+/);
    await page.goto(link);
    await page.getByLabel('New Password').fill('New-password-2');
    await page.getByLabel('Confirm Password').fill('New-password-2');
    await page.getByRole('button', { name: 'Submit' }).click();
    const done = page.getByRole('dialog', { name: 'Password Updated' });
    await done.waitFor();
    expect(await done.textContent()).toContain('Your new password has been set successfully. Please click the button below to login.');
    await done.getByRole('link', { name: 'Login' }).click();
    await page.waitForURL((url) => url.pathname === '/');

    await signIn(page, user.email, 'Old-password-1');
    await page.locator('.toaster-bottom-center').getByText('Invalid Credentials').waitFor();
    await signIn(page, user.email, 'New-password-2');
    await page.waitForURL('**/dashboard');

    // the link was single-use
    await page.context().clearCookies();
    await page.goto(link);
    // a used link says so, with a way to ask for a new one, instead of the form
    await page.getByText('This reset link has already been used.').waitFor();
    await page.getByRole('link', { name: 'Request a new link' }).waitFor();
    expect(await page.getByLabel('New Password').count()).toBe(0);
    await page.context().close();
  });

  test('the sign-in page passes axe-core (WCAG 2.1 AA), also with its field errors shown', async () => {
    const page = await newPage(browser);
    await page.goto('/');
    await expectNoAxeViolations(page);
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Email').blur();
    await page.getByText('Invalid email').waitFor();
    await expectNoAxeViolations(page);
    await page.context().close();
  });

  test('the Login button stays disabled until email and password are filled', async () => {
    const page = await newPage(browser);
    await page.goto('/');
    const login = page.getByRole('button', { name: 'Login' });
    expect(await login.isDisabled()).toBe(true);
    await page.getByLabel('Email').fill('someone@e2e.broker');
    expect(await login.isDisabled()).toBe(true);
    await page.getByLabel('Password').fill('x');
    expect(await login.isDisabled()).toBe(false);
    await page.context().close();
  });

  test("a bad email's blur error moves nothing: one click on 'Sign Up' or 'Forgot password?' lands", async () => {
    const page = await newPage(browser);
    for (const [link, path] of [['Sign Up', '/signup'], ['Forgot password?', '/forgot-password']] as const) {
      await page.goto('/');
      await page.waitForLoadState('networkidle'); // hydrated: the blur validation is live
      await page.getByLabel('Email').fill('not-an-email');
      const before = await page.getByRole('link', { name: link }).boundingBox();
      await page.getByRole('link', { name: link }).click(); // the blur shows 'Invalid email' under the field
      await page.waitForURL((url) => url.pathname === path, { timeout: 5_000 });
      await page.goto('/');
      await page.waitForLoadState('networkidle');
      await page.getByLabel('Email').fill('not-an-email');
      await page.getByLabel('Email').blur();
      await page.getByText('Invalid email').waitFor();
      expect(await page.getByRole('link', { name: link }).boundingBox()).toEqual(before);
    }
    await page.context().close();
  });
});
