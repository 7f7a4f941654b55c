// The customer's /security page (docs/specs.md#security-and-two-factor-sign-in): change password,
// and the two-factor actions of two-factor.server.ts, one answer shape for the route.
import type { Sql } from '~/shared/db.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { hashPassword, verifyPassword } from './password.server.ts';
import { enforceLimits, forgiveSuccess, LIMITS, RateLimitedError, RATE_LIMIT_MESSAGE, type Limit, type RateLimitStore } from './rate-limit.server.ts';
import { revokeAllSessions, type CurrentSession } from './session.server.ts';
import { actingUserId } from './impersonation.server.ts';
import { SECURITY_TOASTS } from './messages.ts';
import { beginEnrolment, cancelEnrolment, confirmEnrolment, disableTwoFactor } from './two-factor.server.ts';
import { refuse, type Refusal } from '~/shared/result.server.ts';

export interface ChangePasswordInput {
  userId: number;
  /** the session that asks: it stays signed in, every other one of the user ends */
  sessionId: number;
  /** the audit's actor when not the user: the staff member of a login-as session */
  actorId?: number;
  currentPassword: string;
  newPassword: string;
  ip: string | null;
}

/**
 * Changes the password when the current one is right. Wrong current passwords count against the
 * account's limit (failures only: a success takes its attempt back). On success every other
 * session of the user ends, pending two-factor sign-ins die, and an audit row is written, in one
 * transaction.
 */
export async function changePassword(sql: Sql, store: RateLimitStore, input: ChangePasswordInput): Promise<{ ok: true; revokedSessions: number } | Refusal> {
  const limit: [Limit, string][] = [[LIMITS.passwordChangeUser, String(input.userId)]];
  try {
    await enforceLimits(store, limit);
  } catch (e) {
    if (e instanceof RateLimitedError) return refuse(429, RATE_LIMIT_MESSAGE, undefined, { minutes: e.minutes });
    throw e;
  }
  const [user] = await sql`SELECT password_hash FROM users WHERE id = ${input.userId} AND deleted_at IS NULL`;
  if (!user || !(await verifyPassword(user.password_hash, input.currentPassword))) {
    return refuse(400, 'Current password is incorrect', 'currentPassword');
  }
  if (input.newPassword === input.currentPassword) return refuse(400, 'The new password must be different from the current one', 'newPassword');
  const passwordHash = await hashPassword(input.newPassword);
  const revoked = await sql.begin(async (tx) => {
    await tx`UPDATE users SET password_hash = ${passwordHash}, updated_at = now() WHERE id = ${input.userId}`;
    // every other session, and the login-as sessions a staff member opened (docs/specs.md#login-as)
    const ended = await revokeAllSessions(tx, input.userId, { keep: input.sessionId });
    await tx`UPDATE login_challenges SET used_at = now() WHERE user_id = ${input.userId} AND used_at IS NULL`;
    await audit(tx, {
      actorId: input.actorId ?? input.userId, action: 'security.password_change', targetKind: 'user', targetId: input.userId,
      after: { otherSessionsEnded: ended }, ip: input.ip,
    });
    return ended;
  });
  await forgiveSuccess(store, limit, []);
  return { ok: true, revokedSessions: revoked };
}

export type SecurityAction =
  | { intent: 'password'; currentPassword: string; newPassword: string }
  | { intent: 'start' }
  | { intent: 'cancel' }
  | { intent: 'confirm'; code: string }
  | { intent: 'disable'; code: string };

export type SecurityAnswer =
  | { ok: true; toast: string; recoveryCodes?: string[] }
  | Refusal;

/**
 * One /security action for the signed-in user. Two-factor is changed only by the account holder:
 * a login-as session (staff acting as the customer) is refused.
 */
export async function runSecurityAction(sql: Sql, store: RateLimitStore, s: CurrentSession, a: SecurityAction, ip: string | null): Promise<SecurityAnswer> {
  const userId = s.user.id;
  if (a.intent === 'password') {
    const r = await changePassword(sql, store, { userId, sessionId: s.sessionId, actorId: actingUserId(s), currentPassword: a.currentPassword, newPassword: a.newPassword, ip });
    return r.ok ? { ok: true, toast: SECURITY_TOASTS.passwordChanged } : r;
  }
  if (s.impersonatorId !== null) return refuse(403, 'Only the account holder can change two-factor sign-in.');
  switch (a.intent) {
    case 'start': {
      const r = await beginEnrolment(sql, userId);
      return r.ok ? { ok: true, toast: SECURITY_TOASTS.enrolStarted } : r;
    }
    case 'cancel':
      await cancelEnrolment(sql, userId);
      return { ok: true, toast: SECURITY_TOASTS.enrolCancelled };
    case 'confirm': {
      const r = await confirmEnrolment(sql, store, { userId, code: a.code, ip });
      return r.ok ? { ok: true, toast: SECURITY_TOASTS.enabled, recoveryCodes: r.recoveryCodes } : r;
    }
    case 'disable': {
      const r = await disableTwoFactor(sql, store, { userId, code: a.code, ip });
      return r.ok ? { ok: true, toast: SECURITY_TOASTS.disabled } : r;
    }
  }
}
