// Two-factor sign-in with an authenticator app (TOTP, RFC 6238) — every rule of it lives here
// (docs/specs.md#security-and-two-factor-sign-in): the secret (encrypted at rest with SECRETS_KEY),
// enrolment (QR + secret, confirmed by a code), the ten recovery codes (shown once, stored as
// sha-256, each usable once), codes accepted ±1 time step and never twice (the last accepted step
// is stored), turning it off, the pending sign-in that waits for a code, and the staff switch.
// Functions take a Sql handle and plain values, so tests call them directly.
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { decryptSecret, encryptSecret, secretsKey } from '@broker/engine/contract/secrets';
import type { Db, Sql } from '~/shared/db.server.ts';
import { env } from '~/shared/env.server.ts';
import { getSetting } from '~/shared/settings.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { refuse, type Refusal } from '~/shared/result.server.ts';
import { enforceLimits, forgiveSuccess, LIMITS, RateLimitedError, RATE_LIMIT_MESSAGE, type Limit, type RateLimitStore } from './rate-limit.server.ts';
import type { CurrentSession } from './session.server.ts';
import { newToken, sha256 } from './tokens.server.ts';
import { STAFF_ROLES, type RoleId } from './permissions.ts';

export const TOTP_PERIOD = 30;
export const TOTP_DIGITS = 6;
/** codes of the previous and the next time step are accepted too (clock drift) */
export const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
/** how long a sign-in whose password was right waits for its code */
export const CHALLENGE_SECONDS = 5 * 60;
/** wrong codes one pending sign-in takes before it must start again with the password */
export const CHALLENGE_MAX_ATTEMPTS = 5;
export const CHALLENGE_COOKIE = '__2fa';
/** the sign-in step that asks for the code */
export const CHALLENGE_PATH = '/two-factor';

function rateLimited(e: unknown): Refusal {
  if (e instanceof RateLimitedError) return { ok: false, status: 429, message: RATE_LIMIT_MESSAGE, values: { minutes: e.minutes } };
  throw e;
}

const key = () => secretsKey(env().SECRETS_KEY);

function totp(base32: string, label = 'account', issuer = '') {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD, secret: Secret.fromBase32(base32) });
}

/** The time step a code belongs to when it is valid now (±TOTP_WINDOW steps), else null. */
export function matchTotp(base32: string, code: string, now = Date.now()): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totp(base32).validate({ token, timestamp: now, window: TOTP_WINDOW });
  if (delta === null) return null;
  return Math.floor(now / 1000 / TOTP_PERIOD) + delta;
}

/** The code an app shows for this secret at `now` (tests, and nothing else, need it). */
export function totpCode(base32: string, now = Date.now()): string {
  return totp(base32).generate({ timestamp: now });
}

// ------------------------------------------------------------------ recovery codes

const B32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** 80 random bits as 16 base32 letters, shown as xxxx-xxxx-xxxx-xxxx. */
function newRecoveryCode(): string {
  let out = '';
  let value = 0;
  let bits = 0;
  for (const b of randomBytes(10)) {
    value = ((value << 8) | b) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out.match(/.{4}/g)!.join('-');
}

/** A typed recovery code without case, spaces or dashes; null when it cannot be one. */
function normalizeRecoveryCode(code: string): string | null {
  const c = code.toLowerCase().replace(/[\s-]+/g, '');
  return /^[a-z2-7]{16}$/.test(c) ? c : null;
}

const recoveryHash = (userId: number, normalized: string) => sha256(`${userId}:${normalized}`);

// ------------------------------------------------------------------ state and enrolment

export interface TwoFactorState {
  enabled: boolean;
  enabledAt: string | null;
  /** recovery codes not used yet */
  recoveryLeft: number;
  /** an enrolment waiting for its first code: what the app needs */
  pending: { secret: string; uri: string; qr: string } | null;
}

/** Whether the user signs in with a second factor. */
export async function twoFactorOn(sql: Sql, userId: number): Promise<boolean> {
  const [row] = await sql`SELECT 1 FROM user_two_factor WHERE user_id = ${userId} AND enabled_at IS NOT NULL`;
  return !!row;
}

/** What /security shows: on or off, codes left, and the QR and secret of an enrolment under way. */
export async function twoFactorState(sql: Sql, user: { id: number; email: string }, withPending = true): Promise<TwoFactorState> {
  const [row] = await sql`
    SELECT t.secret, t.enabled_at,
           (SELECT count(*)::int FROM user_recovery_codes r WHERE r.user_id = t.user_id AND r.used_at IS NULL) AS left
      FROM user_two_factor t WHERE t.user_id = ${user.id}`;
  if (!row) return { enabled: false, enabledAt: null, recoveryLeft: 0, pending: null };
  if (row.enabled_at) return { enabled: true, enabledAt: (row.enabled_at as Date).toISOString(), recoveryLeft: row.left, pending: null };
  if (!withPending) return { enabled: false, enabledAt: null, recoveryLeft: 0, pending: null };
  const secret = decryptSecret(row.secret, key());
  const issuer = (await getSetting(sql, 'branding')).appName;
  const uri = totp(secret, user.email, issuer).toString();
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#000000', light: '#ffffff' } });
  return {
    enabled: false, enabledAt: null, recoveryLeft: 0,
    pending: { secret: secret.match(/.{1,4}/g)!.join(' '), uri, qr: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` },
  };
}

/** Starts (or starts again) an enrolment: a new secret, not used for sign-in until a code confirms it. */
export async function beginEnrolment(sql: Sql, userId: number): Promise<{ ok: true } | Refusal> {
  const secret = encryptSecret(new Secret({ size: 20 }).base32, key());
  const [row] = await sql`
    INSERT INTO user_two_factor AS t (user_id, secret) VALUES (${userId}, ${secret})
    ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, last_step = NULL, created_at = now()
     WHERE t.enabled_at IS NULL
    RETURNING user_id`;
  if (!row) return refuse(409, 'Two-factor sign-in is already on.');
  return { ok: true };
}

/** Drops an enrolment that was not confirmed. */
export async function cancelEnrolment(sql: Sql, userId: number): Promise<void> {
  await sql`DELETE FROM user_two_factor WHERE user_id = ${userId} AND enabled_at IS NULL`;
}

export interface CodeInput { userId: number; code: string; ip: string | null; now?: number }

/**
 * Turns two-factor on with the first code from the app; answers the ten recovery codes, the only
 * time they are ever shown (only their hashes are kept). Wrong codes count against the account's
 * two-factor limit.
 */
export async function confirmEnrolment(sql: Sql, store: RateLimitStore, input: CodeInput): Promise<{ ok: true; recoveryCodes: string[] } | Refusal> {
  const limit: [Limit, string][] = [[LIMITS.twoFactorUser, String(input.userId)]];
  try {
    await enforceLimits(store, limit);
  } catch (e) {
    return rateLimited(e);
  }
  const [row] = await sql`SELECT secret, enabled_at FROM user_two_factor WHERE user_id = ${input.userId}`;
  if (row?.enabled_at) return refuse(409, 'Two-factor sign-in is already on.');
  if (!row) return refuse(409, 'Start the set-up again.');
  const step = matchTotp(decryptSecret(row.secret, key()), input.code, input.now);
  if (step === null) return refuse(400, 'The code is not valid or was already used.', 'code');
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const done = await sql.begin(async (tx) => {
    // the secret the code was checked against must still be the pending one
    const [on] = await tx`UPDATE user_two_factor SET enabled_at = now(), last_step = ${step}
                           WHERE user_id = ${input.userId} AND enabled_at IS NULL AND secret = ${row.secret} RETURNING user_id`;
    if (!on) return false;
    await tx`DELETE FROM user_recovery_codes WHERE user_id = ${input.userId}`;
    const hashes = codes.map((c) => recoveryHash(input.userId, normalizeRecoveryCode(c)!));
    await tx`INSERT INTO user_recovery_codes (user_id, code_hash) SELECT ${input.userId}, unnest(${hashes}::text[])`;
    await audit(tx, { actorId: input.userId, action: 'security.two_factor_on', targetKind: 'user', targetId: input.userId, after: { recoveryCodes: RECOVERY_CODE_COUNT }, ip: input.ip });
    return true;
  });
  if (!done) return refuse(409, 'Start the set-up again.');
  await forgiveSuccess(store, limit, []);
  return { ok: true, recoveryCodes: codes };
}

/**
 * Checks a second factor of a user who has two-factor on: a code of the app (accepted only for a
 * time step later than the last one accepted, so it cannot be replayed) or an unused recovery
 * code (used up by this). Each check is one conditional UPDATE: two requests racing with the
 * same code cannot both pass.
 */
export async function verifySecondFactor(sql: Db, userId: number, code: string, now = Date.now()): Promise<'totp' | 'recovery' | null> {
  const [row] = await sql`SELECT secret FROM user_two_factor WHERE user_id = ${userId} AND enabled_at IS NOT NULL`;
  if (!row) return null;
  const compact = code.replace(/\s+/g, '');
  if (/^\d+$/.test(compact)) {
    const step = matchTotp(decryptSecret(row.secret, key()), compact, now);
    if (step === null) return null;
    const [ok] = await sql`UPDATE user_two_factor SET last_step = ${step}
                            WHERE user_id = ${userId} AND enabled_at IS NOT NULL AND (last_step IS NULL OR last_step < ${step})
                            RETURNING user_id`;
    return ok ? 'totp' : null;
  }
  const normalized = normalizeRecoveryCode(code);
  if (!normalized) return null;
  const [used] = await sql`UPDATE user_recovery_codes SET used_at = now()
                            WHERE user_id = ${userId} AND code_hash = ${recoveryHash(userId, normalized)} AND used_at IS NULL
                            RETURNING id`;
  return used ? 'recovery' : null;
}

/** Turns two-factor off, given a current code of the app or a recovery code. */
export async function disableTwoFactor(sql: Sql, store: RateLimitStore, input: CodeInput): Promise<{ ok: true } | Refusal> {
  const limit: [Limit, string][] = [[LIMITS.twoFactorUser, String(input.userId)]];
  try {
    await enforceLimits(store, limit);
  } catch (e) {
    return rateLimited(e);
  }
  if (!(await twoFactorOn(sql, input.userId))) return refuse(409, 'Two-factor sign-in is already off.');
  const off = await sql.begin(async (tx) => {
    const kind = await verifySecondFactor(tx, input.userId, input.code, input.now);
    if (!kind) return null;
    await tx`DELETE FROM user_two_factor WHERE user_id = ${input.userId}`;
    await tx`DELETE FROM user_recovery_codes WHERE user_id = ${input.userId}`;
    await tx`UPDATE login_challenges SET used_at = now() WHERE user_id = ${input.userId} AND used_at IS NULL`;
    await audit(tx, { actorId: input.userId, action: 'security.two_factor_off', targetKind: 'user', targetId: input.userId, after: { with: kind }, ip: input.ip });
    return kind;
  });
  if (!off) return refuse(400, 'The code is not valid or was already used.', 'code');
  await forgiveSuccess(store, limit, []);
  return { ok: true };
}

// ------------------------------------------------------------------ the staff switch

/**
 * Whether this session must enrol before anything else: the site switch 'two-factor required for
 * staff' is on, the user is staff, has no second factor, and is signed in as themselves. Then the
 * only page they may open is the enrolment page (guards.server.ts requireAccess).
 */
export async function enrolmentRequired(sql: Sql, s: Pick<CurrentSession, 'impersonatorId'> & { user: Pick<CurrentSession['user'], 'roleId' | 'twoFactor'> }): Promise<boolean> {
  if (!STAFF_ROLES.includes(s.user.roleId as RoleId) || s.user.twoFactor || s.impersonatorId !== null) return false;
  return (await getSetting(sql, 'twoFactor')).staffRequired === 'on';
}

// ------------------------------------------------------------------ the pending sign-in

export async function createLoginChallenge(sql: Sql, c: { userId: number; remember: boolean; ip: string | null; userAgent?: string | null }): Promise<string> {
  const token = newToken();
  // the user's spent ones go: the table holds only what may still matter
  await sql`DELETE FROM login_challenges WHERE user_id = ${c.userId} AND (used_at IS NOT NULL OR expires_at <= now() OR attempts >= ${CHALLENGE_MAX_ATTEMPTS})`;
  await sql`INSERT INTO login_challenges (token_hash, user_id, remember, ip, user_agent, expires_at)
            VALUES (${sha256(token)}, ${c.userId}, ${c.remember}, ${c.ip}, ${c.userAgent?.slice(0, 500) ?? null},
                    now() + make_interval(secs => ${CHALLENGE_SECONDS}))`;
  return token;
}

export interface LiveChallenge { id: number; userId: number; remember: boolean; attempts: number }

const liveRow = (r: Record<string, unknown>): LiveChallenge =>
  ({ id: Number(r.id), userId: Number(r.user_id), remember: r.remember as boolean, attempts: Number(r.attempts) });

/** The pending sign-in of a cookie token while it may still take a code, else null. */
export async function liveChallenge(sql: Sql, token: string | undefined): Promise<LiveChallenge | null> {
  if (!token || token.length > 200) return null;
  const [row] = await sql`SELECT id, user_id, remember, attempts FROM login_challenges
                           WHERE token_hash = ${sha256(token)} AND used_at IS NULL AND expires_at > now() AND attempts < ${CHALLENGE_MAX_ATTEMPTS}`;
  return row ? liveRow(row) : null;
}

/** Counts one code attempt against the pending sign-in, before the code is checked; null once it is dead. */
export async function countChallengeAttempt(sql: Sql, token: string): Promise<LiveChallenge | null> {
  const [row] = await sql`UPDATE login_challenges SET attempts = attempts + 1
                           WHERE token_hash = ${sha256(token)} AND used_at IS NULL AND expires_at > now() AND attempts < ${CHALLENGE_MAX_ATTEMPTS}
                           RETURNING id, user_id, remember, attempts`;
  return row ? liveRow(row) : null;
}

/** Uses the pending sign-in up (exactly once, whatever races). */
export async function consumeChallenge(sql: Db, id: number): Promise<boolean> {
  const [row] = await sql`UPDATE login_challenges SET used_at = now() WHERE id = ${id} AND used_at IS NULL RETURNING id`;
  return !!row;
}

// Path=/: Remix reads the page's data at /two-factor.data, which a Path=/two-factor cookie would miss
export function challengeCookie(token: string): string {
  const parts = [`${CHALLENGE_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${CHALLENGE_SECONDS}`];
  if (env().NODE_ENV === 'production') parts.push('Secure');
  return parts.join('; ');
}

export function clearChallengeCookie(): string {
  const parts = [`${CHALLENGE_COOKIE}=`, 'Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=0'];
  if (env().NODE_ENV === 'production') parts.push('Secure');
  return parts.join('; ');
}
