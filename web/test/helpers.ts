// Test helpers: every test makes its own uniquely named data in the shared test database.
import { randomBytes } from 'node:crypto';
import { connect, type Sql } from '~/shared/db.server.ts';
import { hashPassword } from '~/modules/auth/password.server.ts';
import { createSession } from '~/modules/auth/session.server.ts';
import { SESSION_COOKIE } from '~/shared/cookies.server.ts';
import type { AuthConfig } from '~/modules/auth/auth.server.ts';
import { postgresStore } from '~/modules/auth/rate-limit.server.ts';

export function testSql(max = 3): Sql {
  return connect(process.env.DATABASE_URL!, max);
}

export function unique(prefix = 't'): string {
  return `${prefix}${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
}

export function uniqueEmail(prefix = 'user'): string {
  return `${unique(prefix)}@test.broker`;
}

/** A random address in 10.0.0.0/8, so per-IP limits of parallel test files never meet. */
export function uniqueIp(): string {
  const b = randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2] || 1}`;
}

export const PASSWORD = 'Secret-pass-1';
let cachedHash: Promise<string> | undefined;

export interface TestUser { id: number; email: string; roleId: number }

export async function createUser(sql: Sql, opts: { roleId?: number; email?: string; active?: boolean; verified?: boolean; password?: string } = {}): Promise<TestUser> {
  const email = opts.email ?? uniqueEmail(`r${opts.roleId ?? 3}-`);
  const hash = opts.password ? await hashPassword(opts.password) : await (cachedHash ??= hashPassword(PASSWORD));
  const [u] = await sql`INSERT INTO users (email, password_hash, full_name, role_id, is_active, is_email_verified)
                        VALUES (${email}, ${hash}, ${'Test ' + email.slice(0, 12)}, ${opts.roleId ?? 3}, ${opts.active ?? true}, ${opts.verified ?? true})
                        RETURNING id`;
  return { id: Number(u.id), email, roleId: opts.roleId ?? 3 };
}

export async function sessionFor(sql: Sql, userId: number, extra: { impersonatorId?: number; parentId?: number } = {}) {
  const s = await createSession(sql, { userId, remember: false, ...extra });
  return { ...s, cookie: `${SESSION_COOKIE}=${s.token}` };
}

export const BASE = 'http://app.test';

export function get(path: string, cookie?: string): Request {
  return new Request(BASE + path, { headers: cookie ? { cookie } : {} });
}

export function post(path: string, body: Record<string, string> | FormData, opts: { cookie?: string; origin?: string | null } = {}): Request {
  const form = body instanceof FormData ? body : new URLSearchParams(body);
  const headers: Record<string, string> = {};
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.origin !== null) headers.origin = opts.origin ?? BASE;
  return new Request(BASE + path, { method: 'POST', body: form, headers });
}

export function testAuthConfig(over: Partial<AuthConfig> = {}): AuthConfig {
  return {
    emailVerify: false,
    captcha: { enabled: false, secretKey: '' },
    appUrl: BASE,
    appName: 'Test Broker',
    currencies: ['USD', 'EUR'],
    demoInitialBalance: '10000',
    ...over,
  };
}

export { postgresStore };

/** The token inside a link of the newest outbox mail to `to` matching `pattern`. */
export async function linkFromOutbox(sql: Sql, to: string, pattern: RegExp): Promise<string> {
  const [row] = await sql`SELECT text_body FROM email_outbox WHERE to_address = ${to} ORDER BY id DESC LIMIT 1`;
  const m = row ? pattern.exec(row.text_body) : null;
  if (!m) throw new Error(`no mail to ${to} matching ${pattern}`);
  return m[1];
}

export function setCookieToken(res: Response): string | null {
  const header = res.headers.get('set-cookie') ?? '';
  const m = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(header);
  return m ? m[1] : null;
}

/** Runs a loader or action that may throw a Response; returns the Response either way. */
export async function settle(p: Promise<unknown>): Promise<Response | unknown> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof Response) return e;
    throw e;
  }
}

/**
 * A loader's or action's answer, whatever its shape: a Response (thrown or returned: status, body
 * as JSON when it parses, else text, and its Location) or data(body, init).
 */
export async function answerOf(p: Promise<unknown>): Promise<{ status: number; body: any; location: string | null }> {
  const r = await settle(p);
  if (r instanceof Response) {
    const text = await r.text();
    let body: unknown = text;
    try { body = JSON.parse(text); } catch { /* text */ }
    return { status: r.status, body, location: r.headers.get('location') };
  }
  const d = r as { type?: string; data?: unknown; init?: { status?: number } };
  if (d && d.type === 'DataWithResponseInit') return { status: d.init?.status ?? 200, body: d.data, location: null };
  return { status: 200, body: r, location: null };
}

/**
 * The manual gateways as every test file sees them (the same rows whichever file writes them
 * first: tests never change them): bank without a fee, BTC and USDT at 0.5 %, all active, and
 * stripe inactive.
 */
export async function ensureGateways(sql: Sql): Promise<void> {
  await sql`
    INSERT INTO payment_gateways (name, title, is_manual, key1, key2, key3, key4, key5, fee, is_active) VALUES
      ('bank', 'Bank Transfer', true, 'Test Bank', 'Test Broker Ltd', 'GB00TEST0000000000', 'TESTGB22', 'United Kingdom', 0, true),
      ('btc', 'Bitcoin', true, 'bc1qtestaddress000000000000000000000000', null, null, null, null, 0.5, true),
      ('usdt', 'USDT (TRC-20)', true, 'TTestAddress00000000000000000000000', null, null, null, null, 0.5, true),
      ('stripe', 'Stripe', false, null, null, null, null, null, 2.9, false)
    ON CONFLICT (name) DO NOTHING`;
}

/** A wallet of the user, credited through the ledger when `credit` is given. */
export async function walletFor(sql: Sql, userId: number, opts: { mode?: 'demo' | 'real'; currency?: string; credit?: string } = {}): Promise<number> {
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${userId}, ${opts.mode ?? 'real'}, ${opts.currency ?? 'USD'}) RETURNING id`;
  if (opts.credit) await sql`SELECT * FROM post_ledger(${b.id}, ${opts.credit}::numeric, 'adjustment', 'test', ${`credit-${b.id}`})`;
  return Number(b.id);
}

/**
 * Waits until some backend waits on a lock that backend `pid` holds (pg_blocking_pids), for at
 * most `ms`; asks on a connection of its own (the caller's pool may be the one waiting).
 */
export async function blockedBy(pid: number, ms = 10_000): Promise<void> {
  const probe = testSql(1);
  try {
    const end = Date.now() + ms;
    for (;;) {
      const [r] = await probe`SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${pid}::int = ANY(pg_blocking_pids(pid))`;
      if (r.n > 0) return;
      if (Date.now() > end) throw new Error(`nothing waited on backend ${pid}'s locks within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await probe.end();
  }
}
