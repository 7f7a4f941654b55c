// Server-side sessions. The cookie holds a random token; the sessions table holds its sha-256.
// remember: the cookie lives 30 days; otherwise it is a browser-session cookie and the
// server-side row expires after 12 idle hours.
import type { Db, Sql } from '~/shared/db.server.ts';
import { readCookie, REMEMBER_SECONDS, SESSION_COOKIE } from '~/shared/cookies.server.ts';
import { isIP } from 'node:net';
import { newToken, sha256 } from './tokens.server.ts';
import { routeAccess, type RoleId } from './permissions.ts';

export const IDLE_SECONDS = 12 * 60 * 60;

export interface SessionUser {
  id: number;
  email: string;
  fullName: string;
  roleId: number;
  isActive: boolean;
  isEmailVerified: boolean;
  activeBalanceId: number | null;
  pricingPlanId: number | null;
  /** signs in with a second factor (modules/auth/two-factor.server.ts) */
  twoFactor: boolean;
}

/**
 * The roles that may log in as a customer: the permission map's entry for the login-as route.
 * Re-exported by impersonation.server.ts. The SQL rule of a live session (`session_live`,
 * migrations/1733290000000_session-live.sql) ends a login-as session whose staff member no longer
 * holds one of them; web/test/auth/login-as.test.ts holds the two together.
 */
export const LOGIN_AS_ROLES = routeAccess('/admin/customers/login-as/:id').roles as readonly RoleId[];

export interface CurrentSession {
  sessionId: number;
  remember: boolean;
  impersonatorId: number | null;
  /** the role of the staff member behind a login-as session (one of LOGIN_AS_ROLES), else null */
  impersonatorRoleId: number | null;
  parentId: number | null;
  user: SessionUser;
}

export interface NewSession {
  userId: number;
  remember: boolean;
  ip?: string | null;
  userAgent?: string | null;
  impersonatorId?: number | null;
  parentId?: number | null;
}

export async function createSession(sql: Db, s: NewSession): Promise<{ token: string; id: number }> {
  const token = newToken();
  const seconds = s.remember ? REMEMBER_SECONDS : IDLE_SECONDS;
  const [row] = await sql`
    INSERT INTO sessions (token_hash, user_id, impersonator_id, parent_id, remember, ip, user_agent, expires_at)
    VALUES (${sha256(token)}, ${s.userId}, ${s.impersonatorId ?? null}, ${s.parentId ?? null}, ${s.remember},
            ${s.ip ?? null}, ${s.userAgent?.slice(0, 500) ?? null}, now() + make_interval(secs => ${seconds}))
    RETURNING id`;
  await sql`UPDATE users SET online = true, last_seen_at = now() WHERE id = ${s.userId}`;
  return { token, id: Number(row.id) };
}

/**
 * The live session of a cookie token with its user, or null (expired, revoked, user inactive or
 * deleted, or outside the staff IP whitelist). The whitelist of the staff member behind the session
 * (the user, or the impersonator of a login-as session) is checked on every read, against the
 * request's address, or the address the session signed in from when the caller does not know it:
 * a whitelist added later shuts an open session at once. A login-as session also lives only while
 * its staff member may still open it (docs/specs.md#login-as): active, not deleted, still in a
 * role of LOGIN_AS_ROLES, the customer still in their scope (the rule of guards.server.ts
 * customerVisibleTo: admins and managers any customer, a retention agent the customers whose lead
 * has them as retention agent), and the staff session that opened it not revoked (a password
 * change or a sign-out there ends it). The rule is the SQL function session_live, which the
 * engine's streams read too. One indexed lookup.
 */
export async function findSession(sql: Sql, token: string | undefined, ip?: string | null): Promise<CurrentSession | null> {
  if (!token || token.length > 200) return null;
  const requestIp = ip && isIp(ip) ? ip : null;
  const [row] = await sql`
    SELECT s.id AS session_id, s.remember, s.impersonator_id, s.parent_id, s.last_seen_at,
           u.id, u.email, u.full_name, u.role_id, u.is_active, u.is_email_verified, u.active_balance_id, u.pricing_plan_id,
           i.role_id AS impersonator_role_id,
           EXISTS (SELECT 1 FROM user_two_factor t WHERE t.user_id = u.id AND t.enabled_at IS NOT NULL) AS two_factor
      FROM sessions s JOIN users u ON u.id = s.user_id
      LEFT JOIN users i ON i.id = s.impersonator_id
     WHERE s.token_hash = ${sha256(token)} AND session_live(s.id, ${requestIp}::inet)`;
  if (!row) return null;
  // sliding expiry and presence (modules/users/online.server.ts), written at most once a
  // minute per session: one statement, and none when a concurrent request already did it
  if (Date.now() - new Date(row.last_seen_at).getTime() > 60_000) {
    await sql`WITH s AS (
                UPDATE sessions SET last_seen_at = now(),
                       expires_at = CASE WHEN remember THEN expires_at ELSE now() + make_interval(secs => ${IDLE_SECONDS}) END
                 WHERE id = ${row.session_id} AND last_seen_at < now() - interval '1 minute'
                RETURNING user_id)
              UPDATE users SET online = true, last_seen_at = now() WHERE id IN (SELECT user_id FROM s)`;
  }
  return {
    sessionId: Number(row.session_id),
    remember: row.remember,
    impersonatorId: row.impersonator_id === null ? null : Number(row.impersonator_id),
    impersonatorRoleId: row.impersonator_role_id === null ? null : Number(row.impersonator_role_id),
    parentId: row.parent_id === null ? null : Number(row.parent_id),
    user: {
      id: Number(row.id),
      email: row.email,
      fullName: row.full_name,
      roleId: row.role_id,
      isActive: row.is_active,
      isEmailVerified: row.is_email_verified,
      activeBalanceId: row.active_balance_id === null ? null : Number(row.active_balance_id),
      pricingPlanId: row.pricing_plan_id === null ? null : Number(row.pricing_plan_id),
      twoFactor: row.two_factor,
    },
  };
}

export function getSession(sql: Sql, request: Request, ip?: string | null): Promise<CurrentSession | null> {
  return findSession(sql, readCookie(request, SESSION_COOKIE), ip);
}

// a value PostgreSQL's inet accepts without error (anything else counts as an unknown address)
function isIp(ip: string): boolean {
  return isIP(ip) !== 0;
}

export async function revokeSession(sql: Sql, sessionId: number): Promise<void> {
  const revoked = await sql`
    UPDATE sessions SET revoked_at = now() WHERE (id = ${sessionId} OR parent_id = ${sessionId}) AND revoked_at IS NULL
    RETURNING user_id`;
  // signed out everywhere: no longer shown online
  const users = [...new Set(revoked.map((r) => String(r.user_id)))];
  if (users.length) {
    await sql`
      UPDATE users u SET online = false WHERE u.id = ANY(${users}::bigint[])
         AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id AND s.revoked_at IS NULL AND s.expires_at > now())`;
  }
}

/**
 * Ends every session of the user but `keep` (the one a password change is made from), and every
 * login-as session the user opened as staff, `keep`'s included (docs/specs.md#login-as). Answers
 * how many ended.
 */
export async function revokeAllSessions(sql: Db, userId: number, opts: { keep?: number } = {}): Promise<number> {
  const ended = await sql`
    UPDATE sessions SET revoked_at = now()
     WHERE revoked_at IS NULL AND (impersonator_id = ${userId} OR (user_id = ${userId} AND id <> ${opts.keep ?? 0}))
    RETURNING id`;
  return ended.length;
}

/** Gives a live session a fresh token (used to hand the staff session back after login-as). */
export async function rotateSessionToken(sql: Sql, sessionId: number): Promise<{ token: string; remember: boolean; roleId: number } | null> {
  const token = newToken();
  const [row] = await sql`
    UPDATE sessions s SET token_hash = ${sha256(token)}, last_seen_at = now()
      FROM users u
     WHERE s.id = ${sessionId} AND s.revoked_at IS NULL AND s.expires_at > now() AND u.id = s.user_id
    RETURNING s.remember, u.role_id`;
  return row ? { token, remember: row.remember, roleId: Number(row.role_id) } : null;
}
