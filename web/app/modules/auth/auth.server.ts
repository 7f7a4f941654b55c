// The visitor flows: sign in, sign up, email verification, forgot and reset password.
// Each takes a db handle, the settings it depends on and plain values, so tests call them directly.
import type { Db, Sql } from '~/shared/db.server.ts';
import { decryptSecret, secretsKey } from '@broker/engine/contract/secrets';
import { getSettings } from '~/shared/settings.server.ts';
import { env } from '~/shared/env.server.ts';
import { sendMail } from '~/modules/email/mailer.server.ts';
import { resolveAppUrl } from '~/modules/email/app-url.server.ts';
import { hashPassword, verifyPassword } from './password.server.ts';
import { verifyCaptcha, type CaptchaConfig } from './captcha.server.ts';
import { enforceLimits, forgiveSuccess, LIMITS, RateLimitedError, type Limit, type RateLimitStore } from './rate-limit.server.ts';
import { createSession, revokeAllSessions } from './session.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { leadPhoneE164 } from '~/shared/contact.server.ts';
import {
  CHALLENGE_MAX_ATTEMPTS, consumeChallenge, countChallengeAttempt, createLoginChallenge, enrolmentRequired, liveChallenge, twoFactorOn, verifySecondFactor,
} from './two-factor.server.ts';
import { newToken, sha256 } from './tokens.server.ts';
import type { SignupInput } from './schemas.ts';

export const RESET_TOKEN_SECONDS = 60 * 60;
export const VERIFY_TOKEN_SECONDS = 48 * 60 * 60;

export { MESSAGES } from './messages.ts';
import { MESSAGES } from './messages.ts';
import { isCustomer, ROLE } from '~/shared/roles.ts';

export interface AuthConfig {
  emailVerify: boolean;
  captcha: CaptchaConfig;
  appUrl: string;
  appName: string;
  currencies: string[];
  demoInitialBalance: string;
}

export async function loadAuthConfig(sql: Sql): Promise<AuthConfig> {
  const s = await getSettings(sql, ['branding', 'recaptcha', 'emailVerify'] as const);
  return {
    emailVerify: s.emailVerify.enabled === 'on',
    captcha: { enabled: s.recaptcha.enabled === 'on' && !!s.recaptcha.siteKey, secretKey: readSecret(s.recaptcha.secretKey) },
    appUrl: resolveAppUrl(s.branding.appUrl),
    appName: s.branding.appName,
    currencies: s.branding.currencies,
    demoInitialBalance: s.branding.demoInitialBalance,
  };
}

/** The reCAPTCHA secret is stored encrypted (enc:v1:…); a plain value is used as it is. */
function readSecret(stored: string): string {
  try {
    return decryptSecret(stored, secretsKey(env().SECRETS_KEY));
  } catch {
    console.error('[auth] the stored reCAPTCHA secret cannot be decrypted with SECRETS_KEY');
    return '';
  }
}

export class AuthError extends Error {
  /** set on 429: the seconds the route sends as Retry-After */
  retryAfterSeconds?: number;
  constructor(message: string, public status = 400, public values: Record<string, string | number> = {}) {
    super(message);
  }
}

function fromRateLimit(e: unknown): never {
  if (e instanceof RateLimitedError) {
    const err = new AuthError('Too many attempts. Please try again in {{minutes}} minutes.', 429, { minutes: e.minutes });
    err.retryAfterSeconds = e.retryAfterSeconds;
    throw err;
  }
  throw e;
}

/**
 * The `headers` export of the visitor routes: without one, Remix keeps only Set-Cookie of what an
 * action returns, and Retry-After would never reach the browser.
 */
export function retryAfterHeaders({ actionHeaders, loaderHeaders }: { actionHeaders: Headers; loaderHeaders: Headers }): Headers {
  const out = new Headers();
  const retry = actionHeaders.get('retry-after') ?? loaderHeaders.get('retry-after');
  if (retry) out.set('retry-after', retry);
  return out;
}

/** The headers of an AuthError's answer: Retry-After on every 429. */
export function authErrorHeaders(e: AuthError): HeadersInit | undefined {
  return e.status === 429 ? { 'retry-after': String(e.retryAfterSeconds ?? Number(e.values.minutes ?? 1) * 60) } : undefined;
}

// a real hash of a random password, so unknown emails cost as much time as wrong passwords
let dummyHash: Promise<string> | undefined;

export interface SignInInput { email: string; password: string; remember: boolean; humanKey?: string; ip: string | null; userAgent?: string | null }

export async function signIn(sql: Sql, store: RateLimitStore, cfg: AuthConfig, input: SignInInput): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  await enforceLimits(store, [[LIMITS.loginIp, input.ip], [LIMITS.loginEmail, email]]).catch(fromRateLimit);
  if (!(await verifyCaptcha(cfg.captcha, input.humanKey, input.ip))) throw new AuthError(MESSAGES.captcha);

  const [user] = await sql`SELECT id, password_hash, role_id, is_active, is_email_verified FROM users
                            WHERE email = ${email} AND deleted_at IS NULL`;
  if (!user) {
    dummyHash ??= hashPassword(newToken());
    await verifyPassword(await dummyHash, input.password);
    throw new AuthError(MESSAGES.invalidCredentials, 401);
  }
  if (!(await verifyPassword(user.password_hash, input.password))) throw new AuthError(MESSAGES.invalidCredentials, 401);
  if (!user.is_active) throw new AuthError(MESSAGES.inactive, 403);
  if (cfg.emailVerify && !user.is_email_verified) throw new AuthError(MESSAGES.unverified, 403);
  if (!isCustomer(user.role_id)) {
    const [wl] = await sql`
      SELECT count(*)::int AS n,
             coalesce(bool_or(${input.ip ?? '0.0.0.0'}::inet <<= ip_address), false) AS ok
        FROM user_ip_whitelist WHERE user_id = ${user.id}`;
    if (wl.n > 0 && (!input.ip || !wl.ok)) throw new AuthError(MESSAGES.ipDenied, 403);
  }
  const userId = Number(user.id);
  const roleId = Number(user.role_id);
  // only failures count: this attempt is taken back and the account's failures are forgotten
  const forgive = () => forgiveSuccess(store, [[LIMITS.loginIp, input.ip]], [[LIMITS.loginEmail, email]]);
  if (await twoFactorOn(sql, userId)) {
    // the password was right: no session yet, a pending sign-in that waits for the code
    const challenge = await createLoginChallenge(sql, { userId, remember: input.remember, ip: input.ip, userAgent: input.userAgent });
    await forgive();
    return { step: 'two-factor', challenge, userId, roleId, remember: input.remember };
  }
  const session = await createSession(sql, { userId, remember: input.remember, ip: input.ip, userAgent: input.userAgent });
  await forgive();
  const mustEnrol = await enrolmentRequired(sql, { impersonatorId: null, user: { roleId, twoFactor: false } });
  return { step: 'session', token: session.token, sessionId: session.id, userId, roleId, remember: input.remember, mustEnrol };
}

export interface SignedIn { step: 'session'; token: string; sessionId: number; userId: number; roleId: number; remember: boolean; mustEnrol: boolean }
export interface AwaitingCode { step: 'two-factor'; challenge: string; userId: number; roleId: number; remember: boolean }
export type SignInResult = SignedIn | AwaitingCode;

class WrongCode extends Error {}

export interface SecondFactorInput { challenge: string | undefined; code: string; ip: string | null; userAgent?: string | null; now?: number }

/**
 * The second step of a sign-in with two-factor on: the code of the app or a recovery code (used
 * up). Each attempt counts against the pending sign-in (CHALLENGE_MAX_ATTEMPTS, then it must start
 * again with the password), the account's two-factor limit and the address's sign-in limit, before
 * the code is checked. The session is created only here, in the transaction that uses the pending
 * sign-in up; a wrong code leaves the pending sign-in unused.
 */
export async function completeTwoFactorSignIn(sql: Sql, store: RateLimitStore, input: SecondFactorInput): Promise<SignedIn> {
  const live = await liveChallenge(sql, input.challenge);
  if (!live || !input.challenge) throw new AuthError(MESSAGES.challengeExpired, 401);
  const limits: [Limit, string | null][] = [[LIMITS.loginIp, input.ip], [LIMITS.twoFactorUser, String(live.userId)]];
  await enforceLimits(store, limits).catch(fromRateLimit);
  const attempt = await countChallengeAttempt(sql, input.challenge);
  if (!attempt) throw new AuthError(MESSAGES.challengeExpired, 401);
  const [user] = await sql`SELECT role_id FROM users WHERE id = ${attempt.userId} AND deleted_at IS NULL AND is_active`;
  if (!user) throw new AuthError(MESSAGES.inactive, 403);
  const signed = await sql.begin(async (tx) => {
    if (!(await consumeChallenge(tx, attempt.id))) return null;
    const kind = await verifySecondFactor(tx, attempt.userId, input.code, input.now);
    if (!kind) throw new WrongCode(); // rolls the use of the pending sign-in back
    if (kind === 'recovery') {
      await audit(tx, { actorId: attempt.userId, action: 'auth.recovery_code_used', targetKind: 'user', targetId: attempt.userId, ip: input.ip });
    }
    return createSession(tx, { userId: attempt.userId, remember: attempt.remember, ip: input.ip, userAgent: input.userAgent });
  }).catch((e) => {
    if (e instanceof WrongCode) return e;
    throw e;
  });
  if (signed === null) throw new AuthError(MESSAGES.challengeExpired, 401);
  if (signed instanceof WrongCode) {
    throw new AuthError(attempt.attempts >= CHALLENGE_MAX_ATTEMPTS ? MESSAGES.challengeExpired : MESSAGES.invalidCode, 401);
  }
  await forgiveSuccess(store, limits, []);
  return { step: 'session', token: signed.token, sessionId: signed.id, userId: attempt.userId, roleId: Number(user.role_id), remember: attempt.remember, mustEnrol: false };
}

// ---------------------------------------------------------------- sign-up

export interface SignUpResult { userId: number; verificationSent: boolean }

export async function signUp(sql: Sql, cfg: AuthConfig, store: RateLimitStore, input: SignupInput & { ip: string | null }): Promise<SignUpResult> {
  await enforceLimits(store, [[LIMITS.signupIp, input.ip]]).catch(fromRateLimit);
  if (!(await verifyCaptcha(cfg.captcha, input.humanKey, input.ip))) throw new AuthError(MESSAGES.captcha);
  const currency = cfg.currencies.includes(input.currency) ? input.currency : cfg.currencies[0];
  const passwordHash = await hashPassword(input.password);

  const userId = await sql.begin(async (tx) => {
    const [taken] = await tx`SELECT 1 FROM users WHERE email = ${input.email} AND deleted_at IS NULL`;
    if (taken) throw new AuthError(MESSAGES.emailTaken, 409);
    let promoId: number | null = null;
    // the code's owner is credited with the customer: a manager manages them, a sales agent
    // works them, a retention agent retains them, an affiliate is their affiliator. A code its
    // owner replaced (revoked_at, modules/crm-config/promo-code.server.ts) is no longer valid.
    const owner = { manager: null as number | null, agent: null as number | null, affiliate: null as number | null, ret: null as number | null };
    if (input.promoCode) {
      const [promo] = await tx`SELECT p.id, p.owner_id, o.role_id FROM promo_codes p LEFT JOIN users o ON o.id = p.owner_id
                                WHERE p.code = ${input.promoCode.toUpperCase()} AND p.revoked_at IS NULL`;
      if (!promo) throw new AuthError(MESSAGES.promoInvalid);
      promoId = Number(promo.id);
      const ownerId = promo.owner_id === null ? null : Number(promo.owner_id);
      if (promo.role_id === ROLE.manager) owner.manager = ownerId;
      if (promo.role_id === ROLE.sales) owner.agent = ownerId;
      if (promo.role_id === ROLE.affiliate) owner.affiliate = ownerId;
      if (promo.role_id === ROLE.retention) owner.ret = ownerId;
    }
    const managerId = owner.manager;
    const [u] = await tx`
      INSERT INTO users (email, password_hash, full_name, role_id, is_active, is_email_verified, promo_code_id, manager_id)
      VALUES (${input.email}, ${passwordHash}, ${input.fullName}, 3, true, false, ${promoId}, ${managerId})
      RETURNING id`;
    const id = Number(u.id);
    await provisionCustomer(tx, cfg, id, { ...input, currency }, owner);
    return id;
  }).catch((e) => {
    if (e?.code === '23505') throw new AuthError(MESSAGES.emailTaken, 409); // a concurrent sign-up won
    throw e;
  });

  let verificationSent = false;
  if (cfg.emailVerify) {
    await sendVerificationEmail(sql, cfg, userId, input.email);
    verificationSent = true;
  }
  return { userId, verificationSent };
}

export type CustomerDetails = Pick<SignupInput, 'email' | 'fullName' | 'phone' | 'country' | 'city' | 'address' | 'postalCode' | 'birthDate' | 'currency'>;

/**
 * What makes a new user row (role 3) a customer, as at sign-up: the profile, a demo and a real
 * wallet in the currency (the demo one credited through the ledger with the site's demo balance,
 * and active), and the CRM client lead. Inside the caller's transaction; also used by the staff's
 * add-user modal (modules/users/users.server.ts).
 */
export async function provisionCustomer(
  tx: Db, cfg: Pick<AuthConfig, 'currencies' | 'demoInitialBalance'>, id: number, input: CustomerDetails,
  owner: { manager: number | null; agent: number | null; affiliate: number | null; ret: number | null } = { manager: null, agent: null, affiliate: null, ret: null },
) {
  const currency = cfg.currencies.includes(input.currency) ? input.currency : cfg.currencies[0];
  await tx`INSERT INTO profiles (user_id, phone, birth_date, country, city, address, postal_code)
           VALUES (${id}, ${input.phone}, ${input.birthDate ?? null}, ${input.country}, ${input.city}, ${input.address}, ${input.postalCode})`;
  await openCustomerWallets(tx, id, currency, cfg.demoInitialBalance);
  await linkClientLead(tx, id, input, owner);
}

/**
 * The wallets of a new customer (sign-up, and a CRM lead converted to a user): a demo and a real
 * wallet in `currency`, the demo one credited with the site's initial demo balance through the
 * ledger, and active. Inside the caller's transaction.
 */
export async function openCustomerWallets(tx: Db, userId: number, currency: string, demoInitialBalance: string): Promise<void> {
  const [demo] = await tx`INSERT INTO balances (user_id, mode, currency) VALUES (${userId}, 'demo', ${currency}) RETURNING id`;
  await tx`INSERT INTO balances (user_id, mode, currency) VALUES (${userId}, 'real', ${currency})`;
  if (Number(demoInitialBalance) > 0) {
    await tx`SELECT * FROM post_ledger(${demo.id}, ${demoInitialBalance}::numeric, 'demo_credit', 'signup', ${String(userId)}, NULL, NULL, false)`;
  }
  await tx`UPDATE users SET active_balance_id = ${demo.id} WHERE id = ${userId}`;
}

/**
 * A new customer is a client in the CRM: the newest unlinked lead with their email (they were
 * a lead before signing up) becomes theirs, else a new sales lead is created for them.
 */
async function linkClientLead(
  sql: Db, userId: number, input: Pick<SignupInput, 'email' | 'fullName' | 'phone' | 'country' | 'city'>,
  owner: { manager: number | null; agent: number | null; affiliate: number | null; ret: number | null },
) {
  const [linked] = await sql`
    UPDATE leads SET user_id = ${userId}, updated_at = now(),
           manager_id = coalesce(manager_id, ${owner.manager}), agent_id = coalesce(agent_id, ${owner.agent}),
           affiliate_id = coalesce(affiliate_id, ${owner.affiliate}), ret_id = coalesce(ret_id, ${owner.ret})
     WHERE id = (SELECT id FROM leads WHERE email = ${input.email} AND user_id IS NULL ORDER BY id DESC LIMIT 1)
    RETURNING id`;
  if (linked) return;
  const [first, ...rest] = input.fullName.trim().split(/\s+/);
  await sql`
    INSERT INTO leads (first_name, last_name, email, phone, phone_e164, country, city, lead_status, "group", user_id,
                       manager_id, agent_id, affiliate_id, ret_id)
    VALUES (${first}, ${rest.join(' ')}, ${input.email}, ${input.phone}, ${leadPhoneE164(input.phone, input.country)}, ${input.country}, ${input.city},
            default_sales_status(), 'sales', ${userId},
            ${owner.manager}, ${owner.agent}, ${owner.affiliate}, ${owner.ret})`;
}

export async function sendVerificationEmail(sql: Sql, cfg: AuthConfig, userId: number, email: string) {
  const token = newToken();
  await sql`INSERT INTO email_verification_tokens (user_id, token_hash, expires_at)
            VALUES (${userId}, ${sha256(token)}, now() + make_interval(secs => ${VERIFY_TOKEN_SECONDS}))`;
  const link = `${cfg.appUrl}/verify-email/${token}`;
  await sendMail(sql, {
    to: email,
    subject: `${cfg.appName}: verify your email address`,
    text: `Welcome to ${cfg.appName}.\n\nPlease confirm your email address by opening this link:\n${link}\n\nThe link expires in 48 hours.`,
    html: `<p>Welcome to ${escapeHtml(cfg.appName)}.</p><p><a href="${link}">Confirm your email address</a></p><p>The link expires in 48 hours.</p>`,
  });
  return link;
}

/**
 * 'Resend verification' (the sign-in page): a new verification link for an active, unverified account while
 * verification is on. The caller answers the same whatever happened (MESSAGES.verificationResent): whether the
 * address has an account is not told. Limited per address and per email, every request counted.
 */
export async function resendVerification(sql: Sql, store: RateLimitStore, cfg: AuthConfig, input: { email: string; ip: string | null }): Promise<void> {
  const email = input.email.trim().toLowerCase();
  await enforceLimits(store, [[LIMITS.resendIp, input.ip], [LIMITS.resendEmail, email]]).catch(fromRateLimit);
  if (!cfg.emailVerify) return;
  const [user] = await sql`SELECT id FROM users WHERE email = ${email} AND deleted_at IS NULL AND is_active AND NOT is_email_verified`;
  if (user) await sendVerificationEmail(sql, cfg, Number(user.id), email);
}

/** How long the link of an account staff opened stays valid: the customer may read the mail days later. */
export const ACCOUNT_OPENED_TOKEN_SECONDS = 7 * 24 * 60 * 60;

/**
 * The sign-in mail of an account staff opened (a converted lead): a link to choose their own password, which
 * also verifies the address (it proves the mailbox, as a reset does), so the customer can sign in whether or not
 * verification is on. A password reset token, valid ACCOUNT_OPENED_TOKEN_SECONDS.
 */
export async function sendAccountOpenedMail(sql: Sql, cfg: AuthConfig, userId: number, email: string): Promise<string> {
  const token = newToken();
  await sql`INSERT INTO password_reset_tokens (user_id, token_hash, expires_at)
            VALUES (${userId}, ${sha256(token)}, now() + make_interval(secs => ${ACCOUNT_OPENED_TOKEN_SECONDS}))`;
  const link = `${cfg.appUrl}/reset-password/${token}`;
  await sendMail(sql, {
    to: email,
    subject: `${cfg.appName}: your account is ready`,
    text: `An account was opened for you at ${cfg.appName}.\n\nTo sign in, choose your password by opening this link (it also confirms your email address):\n${link}\n\nThe link expires in 7 days. Later, 'Forgot password?' on the sign-in page sends a new one.`,
    html: `<p>An account was opened for you at ${escapeHtml(cfg.appName)}.</p><p><a href="${link}">Choose your password and sign in</a> (this also confirms your email address).</p><p>The link expires in 7 days. Later, 'Forgot password?' on the sign-in page sends a new one.</p>`,
  });
  return link;
}

/** Marks the token used and the user verified. Single use, expiring. */
export async function verifyEmail(sql: Sql, token: string): Promise<number> {
  const [row] = await sql`
    UPDATE email_verification_tokens SET used_at = now()
     WHERE token_hash = ${sha256(token)} AND used_at IS NULL AND expires_at > now()
    RETURNING user_id`;
  if (!row) throw new AuthError(MESSAGES.verifyInvalid, 400);
  await sql`UPDATE users SET is_email_verified = true, updated_at = now() WHERE id = ${row.user_id}`;
  return Number(row.user_id);
}

// ---------------------------------------------------------------- forgot and reset

/** Sends a reset link when the email belongs to an active account; answers the same either way. */
export async function requestPasswordReset(sql: Sql, store: RateLimitStore, cfg: AuthConfig, input: { email: string; humanKey?: string; ip: string | null }) {
  const email = input.email.trim().toLowerCase();
  await enforceLimits(store, [[LIMITS.forgotIp, input.ip], [LIMITS.forgotEmail, email]]).catch(fromRateLimit);
  if (!(await verifyCaptcha(cfg.captcha, input.humanKey, input.ip))) throw new AuthError(MESSAGES.captcha);
  const [user] = await sql`SELECT id FROM users WHERE email = ${email} AND deleted_at IS NULL AND is_active`;
  if (!user) return { sent: false };
  const token = newToken();
  await sql`INSERT INTO password_reset_tokens (user_id, token_hash, expires_at)
            VALUES (${user.id}, ${sha256(token)}, now() + make_interval(secs => ${RESET_TOKEN_SECONDS}))`;
  const link = `${cfg.appUrl}/reset-password/${token}`;
  await sendMail(sql, {
    to: email,
    subject: `${cfg.appName}: reset your password`,
    text: `Someone asked to reset the password of your ${cfg.appName} account.\n\nTo choose a new password, open this link:\n${link}\n\nThe link expires in 1 hour. If you did not ask for it, ignore this email.`,
    html: `<p>Someone asked to reset the password of your ${escapeHtml(cfg.appName)} account.</p><p><a href="${link}">Choose a new password</a></p><p>The link expires in 1 hour. If you did not ask for it, ignore this email.</p>`,
  });
  return { sent: true };
}

/** Whether a reset token is still usable (for the reset screen's loader). */
/** Where a reset link stands: the page shows the form only for a valid one, else says why, with a way to ask for a new one. */
export type ResetLinkState = 'valid' | 'used' | 'expired' | 'invalid';

export async function resetTokenState(sql: Sql, token: string): Promise<ResetLinkState> {
  const [row] = await sql`SELECT used_at IS NOT NULL AS used, expires_at <= now() AS expired FROM password_reset_tokens WHERE token_hash = ${sha256(token)}`;
  if (!row) return 'invalid';
  return row.used ? 'used' : row.expired ? 'expired' : 'valid';
}

export async function resetTokenValid(sql: Sql, token: string): Promise<boolean> {
  return (await resetTokenState(sql, token)) === 'valid';
}

export async function resetPassword(sql: Sql, store: RateLimitStore, input: { token: string; password: string; ip: string | null }) {
  await enforceLimits(store, [[LIMITS.resetIp, input.ip]]).catch(fromRateLimit);
  const passwordHash = await hashPassword(input.password);
  return sql.begin(async (tx) => {
    const [row] = await tx`
      UPDATE password_reset_tokens SET used_at = now()
       WHERE token_hash = ${sha256(input.token)} AND used_at IS NULL AND expires_at > now()
      RETURNING user_id`;
    if (!row) throw new AuthError(MESSAGES.resetInvalid, 400);
    const userId = Number(row.user_id);
    // the link proves the mailbox: the address counts as verified
    await tx`UPDATE users SET password_hash = ${passwordHash}, is_email_verified = true, updated_at = now() WHERE id = ${userId}`;
    await tx`UPDATE password_reset_tokens SET used_at = now() WHERE user_id = ${userId} AND used_at IS NULL`;
    await revokeAllSessions(tx, userId);
    return userId;
  });
}

function escapeHtml(s: string) {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
