// Integration tests of the visitor flows against the real test database.
import { afterAll, describe, expect, test } from 'vitest';
import {
  AuthError, requestPasswordReset, resendVerification, resetPassword, signIn, signUp, verifyEmail, resetTokenValid, resetTokenState,
} from '~/modules/auth/auth.server.ts';
import { appHandler } from '../app-build.ts';
import { MESSAGES } from '~/modules/auth/messages.ts';
import { findSession } from '~/modules/auth/session.server.ts';
import { LIMITS } from '~/modules/auth/rate-limit.server.ts';
import { verifyPassword } from '~/modules/auth/password.server.ts';
import { BASE, createUser, linkFromOutbox, PASSWORD, postgresStore, testAuthConfig, testSql, uniqueEmail, uniqueIp } from '../helpers.ts';

const sql = testSql();
const store = postgresStore(sql);
afterAll(() => sql.end());

const cfg = testAuthConfig();

async function expectAuthError(p: Promise<unknown>, message: string, status?: number) {
  const e = await p.then(() => null, (err) => err);
  expect(e).toBeInstanceOf(AuthError);
  expect((e as AuthError).message).toBe(message);
  if (status) expect((e as AuthError).status).toBe(status);
  return e as AuthError;
}

const signupInput = (email: string, over: Record<string, unknown> = {}) => ({
  fullName: 'New Customer', email, password: 'Abcdefg-123', passwordConfirmation: 'Abcdefg-123', phone: '+44 20 0000 0000',
  birthDate: '1990-01-02', country: 'France', city: 'Paris', address: '1 Rue', postalCode: '75001', currency: 'EUR', promoCode: undefined, humanKey: undefined,
  ip: uniqueIp(), ...over,
});

describe('sign in', () => {
  test('a right password opens a server-side session whose cookie token is stored hashed', async () => {
    const u = await createUser(sql);
    const s = await signIn(sql, store, cfg, { email: u.email.toUpperCase(), password: PASSWORD, remember: true, ip: uniqueIp() });
    if (s.step !== 'session') throw new Error('no two-factor here: a session is expected');
    expect(s.userId).toBe(u.id);
    const [row] = await sql`SELECT token_hash, remember, expires_at FROM sessions WHERE id = ${s.sessionId}`;
    expect(row.token_hash).not.toBe(s.token);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.remember).toBe(true);
    expect(new Date(row.expires_at).getTime() - Date.now()).toBeGreaterThan(29 * 86400_000);
    expect((await findSession(sql, s.token))?.user.id).toBe(u.id);
  });

  test('a wrong password or unknown email is "Invalid Credentials"', async () => {
    const u = await createUser(sql);
    await expectAuthError(signIn(sql, store, cfg, { email: u.email, password: 'nope-nope', remember: false, ip: uniqueIp() }), MESSAGES.invalidCredentials, 401);
    await expectAuthError(signIn(sql, store, cfg, { email: uniqueEmail('ghost'), password: PASSWORD, remember: false, ip: uniqueIp() }), MESSAGES.invalidCredentials, 401);
  });

  test('inactive users cannot sign in', async () => {
    const u = await createUser(sql, { active: false });
    await expectAuthError(signIn(sql, store, cfg, { email: u.email, password: PASSWORD, remember: false, ip: uniqueIp() }), MESSAGES.inactive, 403);
  });

  test('unverified users cannot sign in while email verification is on, and can when it is off', async () => {
    const u = await createUser(sql, { verified: false });
    await expectAuthError(signIn(sql, store, testAuthConfig({ emailVerify: true }), { email: u.email, password: PASSWORD, remember: false, ip: uniqueIp() }), MESSAGES.unverified, 403);
    await expect(signIn(sql, store, cfg, { email: u.email, password: PASSWORD, remember: false, ip: uniqueIp() })).resolves.toMatchObject({ userId: u.id });
  });

  test('a staff user with an IP whitelist signs in only from those addresses', async () => {
    const staff = await createUser(sql, { roleId: 2 });
    await sql`INSERT INTO user_ip_whitelist (user_id, ip_address) VALUES (${staff.id}, '203.0.113.7'), (${staff.id}, '198.51.100.0/24')`;
    await expectAuthError(signIn(sql, store, cfg, { email: staff.email, password: PASSWORD, remember: false, ip: '203.0.113.8' }), MESSAGES.ipDenied, 403);
    await expectAuthError(signIn(sql, store, cfg, { email: staff.email, password: PASSWORD, remember: false, ip: null }), MESSAGES.ipDenied, 403);
    await expect(signIn(sql, store, cfg, { email: staff.email, password: PASSWORD, remember: false, ip: '203.0.113.7' })).resolves.toMatchObject({ roleId: 2 });
    await expect(signIn(sql, store, cfg, { email: staff.email, password: PASSWORD, remember: false, ip: '198.51.100.42' })).resolves.toMatchObject({ roleId: 2 });
  });

  test('a staff user without a whitelist signs in from anywhere', async () => {
    const staff = await createUser(sql, { roleId: 1 });
    await expect(signIn(sql, store, cfg, { email: staff.email, password: PASSWORD, remember: false, ip: uniqueIp() })).resolves.toMatchObject({ roleId: 1 });
  });
});

describe('rate limits (shared PostgreSQL store)', () => {
  test('per email: attempts past the limit get 429 with a clear message, even with the right password', async () => {
    const u = await createUser(sql);
    for (let i = 0; i < LIMITS.loginEmail.max; i++) {
      await expectAuthError(signIn(sql, store, cfg, { email: u.email, password: 'wrong-pass', remember: false, ip: uniqueIp() }), MESSAGES.invalidCredentials);
    }
    const e = await expectAuthError(signIn(sql, store, cfg, { email: u.email, password: PASSWORD, remember: false, ip: uniqueIp() }),
      'Too many attempts. Please try again in {{minutes}} minutes.', 429);
    expect(Number(e.values.minutes)).toBeGreaterThanOrEqual(1);
    const [row] = await sql`SELECT hits FROM rate_limits WHERE key = ${`login:email:${u.email}`}`;
    expect(row.hits).toBe(LIMITS.loginEmail.max + 1);
  });

  test('per IP: one address trying many emails is stopped', async () => {
    const ip = uniqueIp();
    for (let i = 0; i < LIMITS.loginIp.max; i++) {
      await expectAuthError(signIn(sql, store, cfg, { email: uniqueEmail('spray'), password: 'x', remember: false, ip }), MESSAGES.invalidCredentials);
    }
    await expectAuthError(signIn(sql, store, cfg, { email: uniqueEmail('spray'), password: 'x', remember: false, ip }), 'Too many attempts. Please try again in {{minutes}} minutes.', 429);
  });

  test('an expired window starts again', async () => {
    const u = await createUser(sql);
    await sql`INSERT INTO rate_limits (key, hits, reset_at) VALUES (${`login:email:${u.email}`}, 999, now() - interval '1 second')`;
    await expect(signIn(sql, store, cfg, { email: u.email, password: PASSWORD, remember: false, ip: uniqueIp() })).resolves.toMatchObject({ userId: u.id });
  });

  test('forgot password is limited per email', async () => {
    const u = await createUser(sql);
    for (let i = 0; i < LIMITS.forgotEmail.max; i++) await requestPasswordReset(sql, store, cfg, { email: u.email, ip: uniqueIp() });
    await expectAuthError(requestPasswordReset(sql, store, cfg, { email: u.email, ip: uniqueIp() }), 'Too many attempts. Please try again in {{minutes}} minutes.', 429);
  });

  test('reset is limited per IP', async () => {
    const ip = uniqueIp();
    for (let i = 0; i < LIMITS.resetIp.max; i++) {
      await expectAuthError(resetPassword(sql, store, { token: 'bogus', password: 'Newpass-123', ip }), MESSAGES.resetInvalid);
    }
    await expectAuthError(resetPassword(sql, store, { token: 'bogus', password: 'Newpass-123', ip }), 'Too many attempts. Please try again in {{minutes}} minutes.', 429);
  });
});

describe('sign up', () => {
  test('creates a customer with a profile, a demo balance credited through the ledger and a real balance in the chosen currency', async () => {
    const email = uniqueEmail('signup');
    const r = await signUp(sql, cfg, store, signupInput(email));
    expect(r.verificationSent).toBe(false);
    const [u] = await sql`SELECT role_id, is_email_verified, active_balance_id, password_hash FROM users WHERE id = ${r.userId}`;
    expect(u.role_id).toBe(3);
    expect(await verifyPassword(u.password_hash, 'Abcdefg-123')).toBe(true);
    const balances = await sql`SELECT id, mode, currency, balance::text FROM balances WHERE user_id = ${r.userId} ORDER BY mode`;
    expect(balances.map((b) => [b.mode, b.currency, Number(b.balance)])).toEqual([['demo', 'EUR', 10000], ['real', 'EUR', 0]]);
    expect(Number(u.active_balance_id)).toBe(Number(balances[0].id));
    const [entry] = await sql`SELECT kind, ref_kind, ref_id, amount::text FROM ledger_entries WHERE balance_id = ${balances[0].id}`;
    expect(entry).toMatchObject({ kind: 'demo_credit', ref_kind: 'signup', ref_id: String(r.userId) });
    const [p] = await sql`SELECT country, city, postal_code, birth_date FROM profiles WHERE user_id = ${r.userId}`;
    expect(p).toMatchObject({ country: 'France', city: 'Paris', postal_code: '75001' });
  });

  test('an unknown currency falls back to the first of branding', async () => {
    const r = await signUp(sql, cfg, store, signupInput(uniqueEmail('cur'), { currency: 'JPY' }));
    const rows = await sql`SELECT DISTINCT currency FROM balances WHERE user_id = ${r.userId}`;
    expect(rows.map((x) => x.currency)).toEqual(['USD']);
  });

  test('a promo code is applied to the new account; an unknown one is refused', async () => {
    const code = `P${Date.now().toString(36).toUpperCase()}`.slice(0, 12);
    const [promo] = await sql`INSERT INTO promo_codes (code) VALUES (${code}) RETURNING id`;
    const r = await signUp(sql, cfg, store, signupInput(uniqueEmail('promo'), { promoCode: code.toLowerCase() }));
    const [u] = await sql`SELECT promo_code_id FROM users WHERE id = ${r.userId}`;
    expect(Number(u.promo_code_id)).toBe(Number(promo.id));
    await expectAuthError(signUp(sql, cfg, store, signupInput(uniqueEmail('promo'), { promoCode: 'NOPE0000' })), MESSAGES.promoInvalid);
  });

  test('the new customer is a client in the CRM, credited to the promo code owner', async () => {
    const affiliate = await createUser(sql, { roleId: 4 });
    const code = `A${Date.now().toString(36).toUpperCase()}`.slice(0, 12);
    await sql`INSERT INTO promo_codes (code, owner_id) VALUES (${code}, ${affiliate.id})`;
    const email = uniqueEmail('client');
    const r = await signUp(sql, cfg, store, signupInput(email, { promoCode: code }));
    const leads = await sql`SELECT email, "group"::text AS grp, user_id, affiliate_id, lead_status FROM leads WHERE user_id = ${r.userId}`;
    expect(leads).toHaveLength(1);
    expect(leads[0]).toMatchObject({ email, grp: 'sales' });
    expect(Number(leads[0].affiliate_id)).toBe(affiliate.id);
  });

  test('a lead who signs up becomes that lead\'s client: no second lead', async () => {
    const email = uniqueEmail('was-lead');
    const [lead] = await sql`INSERT INTO leads (first_name, last_name, email, "group", lead_status) VALUES ('Was', 'Lead', ${email}, 'retentions', 'Interested') RETURNING id`;
    const r = await signUp(sql, cfg, store, signupInput(email));
    const rows = await sql`SELECT id, "group"::text AS grp, lead_status FROM leads WHERE email = ${email}`;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ grp: 'retentions', lead_status: 'Interested' });
    const [linked] = await sql`SELECT user_id FROM leads WHERE id = ${lead.id}`;
    expect(Number(linked.user_id)).toBe(r.userId);
  });

  test('an email already registered is refused and nothing is created', async () => {
    const u = await createUser(sql);
    await expectAuthError(signUp(sql, cfg, store, signupInput(u.email)), MESSAGES.emailTaken, 409);
    const [n] = await sql`SELECT count(*)::int AS n FROM users WHERE email = ${u.email}`;
    expect(n.n).toBe(1);
  });

  test('with verification on: a mail with a single-use link; the link verifies the address', async () => {
    const email = uniqueEmail('verify');
    const vcfg = testAuthConfig({ emailVerify: true });
    const r = await signUp(sql, vcfg, store, signupInput(email));
    expect(r.verificationSent).toBe(true);
    await expectAuthError(signIn(sql, store, vcfg, { email, password: 'Abcdefg-123', remember: false, ip: uniqueIp() }), MESSAGES.unverified);
    const token = await linkFromOutbox(sql, email, /\/verify-email\/([A-Za-z0-9_-]+)/);
    const [tok] = await sql`SELECT token_hash FROM email_verification_tokens WHERE user_id = ${r.userId}`;
    expect(tok.token_hash).not.toBe(token);
    expect(await verifyEmail(sql, token)).toBe(r.userId);
    await expectAuthError(verifyEmail(sql, token), MESSAGES.verifyInvalid);
    await expect(signIn(sql, store, vcfg, { email, password: 'Abcdefg-123', remember: false, ip: uniqueIp() })).resolves.toMatchObject({ userId: r.userId });
  });

  test('resend verification: a new link to an unverified account; nothing for others, the same answer; limited per email', async () => {
    const vcfg = testAuthConfig({ emailVerify: true });
    const mails = async (to: string) => (await sql`SELECT count(*)::int AS n FROM email_outbox WHERE to_address = ${to}`)[0].n as number;
    const u = await createUser(sql, { verified: false });
    await resendVerification(sql, store, vcfg, { email: u.email.toUpperCase(), ip: uniqueIp() });
    expect(await mails(u.email)).toBe(1);
    const token = await linkFromOutbox(sql, u.email, /\/verify-email\/([A-Za-z0-9_-]+)/);
    expect(await verifyEmail(sql, token)).toBe(u.id);
    // a verified account and an unknown address: no mail, and no error that would tell them apart
    await expect(resendVerification(sql, store, vcfg, { email: u.email, ip: uniqueIp() })).resolves.toBeUndefined();
    const unknown = uniqueEmail('nobody');
    await expect(resendVerification(sql, store, vcfg, { email: unknown, ip: uniqueIp() })).resolves.toBeUndefined();
    expect(await mails(u.email)).toBe(1);
    expect(await mails(unknown)).toBe(0);
    // limited per email, known or not (every request counts)
    for (let i = 1; i < LIMITS.resendEmail.max; i++) await resendVerification(sql, store, vcfg, { email: unknown, ip: uniqueIp() });
    const e = await resendVerification(sql, store, vcfg, { email: unknown, ip: uniqueIp() }).then(() => null, (x) => x);
    expect((e as AuthError).status).toBe(429);
  });

  test('an expired verification link is refused', async () => {
    const email = uniqueEmail('verify-old');
    const r = await signUp(sql, testAuthConfig({ emailVerify: true }), store, signupInput(email));
    const token = await linkFromOutbox(sql, email, /\/verify-email\/([A-Za-z0-9_-]+)/);
    await sql`UPDATE email_verification_tokens SET expires_at = now() - interval '1 second' WHERE user_id = ${r.userId}`;
    await expectAuthError(verifyEmail(sql, token), MESSAGES.verifyInvalid);
  });
});

describe('forgot and reset password', () => {
  test('the mailed token resets the password once, revokes sessions, and the new password signs in', async () => {
    const u = await createUser(sql);
    const old = await signIn(sql, store, cfg, { email: u.email, password: PASSWORD, remember: false, ip: uniqueIp() });
    if (old.step !== 'session') throw new Error('no two-factor here: a session is expected');
    await expect(requestPasswordReset(sql, store, cfg, { email: u.email, ip: uniqueIp() })).resolves.toEqual({ sent: true });
    const token = await linkFromOutbox(sql, u.email, /\/reset-password\/([A-Za-z0-9_-]+)/);
    expect(await resetTokenValid(sql, token)).toBe(true);
    await resetPassword(sql, store, { token, password: 'Brand-new-pass', ip: uniqueIp() });
    expect(await findSession(sql, old.token)).toBeNull();
    expect(await resetTokenValid(sql, token)).toBe(false);
    await expectAuthError(resetPassword(sql, store, { token, password: 'Another-pass-1', ip: uniqueIp() }), MESSAGES.resetInvalid);
    await expectAuthError(signIn(sql, store, cfg, { email: u.email, password: PASSWORD, remember: false, ip: uniqueIp() }), MESSAGES.invalidCredentials);
    await expect(signIn(sql, store, cfg, { email: u.email, password: 'Brand-new-pass', remember: false, ip: uniqueIp() })).resolves.toMatchObject({ userId: u.id });
  });

  test('an expired reset token is refused', async () => {
    const u = await createUser(sql);
    await requestPasswordReset(sql, store, cfg, { email: u.email, ip: uniqueIp() });
    const token = await linkFromOutbox(sql, u.email, /\/reset-password\/([A-Za-z0-9_-]+)/);
    await sql`UPDATE password_reset_tokens SET expires_at = now() - interval '1 second' WHERE user_id = ${u.id}`;
    await expectAuthError(resetPassword(sql, store, { token, password: 'Brand-new-pass', ip: uniqueIp() }), MESSAGES.resetInvalid);
  });

  test('a link says whether it is valid, used or expired (the page shows which, not a form that cannot work)', async () => {
    const u = await createUser(sql);
    await requestPasswordReset(sql, store, cfg, { email: u.email, ip: uniqueIp() });
    const token = await linkFromOutbox(sql, u.email, /\/reset-password\/([A-Za-z0-9_-]+)/);
    expect(await resetTokenState(sql, token)).toBe('valid');
    expect(await resetTokenState(sql, 'bogus')).toBe('invalid');
    await sql`UPDATE password_reset_tokens SET expires_at = now() - interval '1 second' WHERE user_id = ${u.id}`;
    expect(await resetTokenState(sql, token)).toBe('expired');
    await sql`UPDATE password_reset_tokens SET expires_at = now() + interval '1 hour', used_at = now() WHERE user_id = ${u.id}`;
    expect(await resetTokenState(sql, token)).toBe('used');
  });

  test('the reset form is refused on the server unless the confirmation matches; nothing changes', async () => {
    const u = await createUser(sql);
    await requestPasswordReset(sql, store, cfg, { email: u.email, ip: uniqueIp() });
    const token = await linkFromOutbox(sql, u.email, /\/reset-password\/([A-Za-z0-9_-]+)/);
    const post = async (fields: Record<string, string>) => (await appHandler())(new Request(`${BASE}/reset-password/${token}`, {
      method: 'POST', body: new URLSearchParams(fields), redirect: 'manual',
      headers: { origin: BASE, host: new URL(BASE).host, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': uniqueIp() },
    }));
    expect((await post({ password: 'Brand-new-pass' })).status).toBe(400);
    expect((await post({ password: 'Brand-new-pass', passwordConfirmation: 'Brand-new-pasz' })).status).toBe(400);
    expect(await resetTokenValid(sql, token)).toBe(true);
    const [row] = await sql`SELECT password_hash FROM users WHERE id = ${u.id}`;
    expect(await verifyPassword(row.password_hash, PASSWORD)).toBe(true);
    expect((await post({ password: 'Brand-new-pass', passwordConfirmation: 'Brand-new-pass' })).status).toBe(200);
    expect(await resetTokenState(sql, token)).toBe('used');
  }, 120_000); // the first request loads every route module (app-build.ts)

  test('an unknown email gets the same answer and no mail', async () => {
    const email = uniqueEmail('nobody');
    await expect(requestPasswordReset(sql, store, cfg, { email, ip: uniqueIp() })).resolves.toEqual({ sent: false });
    const [n] = await sql`SELECT count(*)::int AS n FROM email_outbox WHERE to_address = ${email}`;
    expect(n.n).toBe(0);
  });
});
