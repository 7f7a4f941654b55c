// Login-as: a staff member opens a customer's client area through a child session whose
// impersonator_id and parent_id point back at them. Ending it revokes the child and hands the
// staff session back under a fresh token. Both ends are audited.
import { isIP } from 'node:net';
import type { Db, Sql } from '~/shared/db.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { createSession, LOGIN_AS_ROLES, rotateSessionToken, type CurrentSession } from './session.server.ts';
import { isCustomer } from '~/shared/roles.ts';

// for a retention agent the retention flag is kept, and the customer's pages show the contact
// details masked (profile.server.ts phoneLocked)
export { LOGIN_AS_ROLES };

export class ImpersonationError extends Error {
  constructor(message: string, public status: number) {
    super(message);
  }
}

export async function startImpersonation(sql: Sql, staff: CurrentSession, targetUserId: number, meta: { ip: string | null; userAgent?: string | null }) {
  if (!(LOGIN_AS_ROLES as readonly number[]).includes(staff.user.roleId) || staff.impersonatorId !== null) {
    throw new ImpersonationError('Forbidden', 403);
  }
  const [target] = await sql`SELECT id, role_id, email FROM users WHERE id = ${targetUserId} AND deleted_at IS NULL`;
  if (!target) throw new ImpersonationError('User not found', 404);
  if (!isCustomer(target.role_id)) throw new ImpersonationError('Only customers can be signed in as', 400);
  const session = await createSession(sql, {
    userId: Number(target.id), remember: false, ip: meta.ip, userAgent: meta.userAgent,
    impersonatorId: staff.user.id, parentId: staff.sessionId,
  });
  await audit(sql, { actorId: staff.user.id, action: 'auth.login_as', targetKind: 'user', targetId: target.id, after: { sessionId: session.id }, ip: meta.ip });
  return session;
}

/** Ends a login-as session; returns the staff session's new token, or null if it is gone. */
export async function endImpersonation(sql: Sql, current: CurrentSession, meta: { ip: string | null }) {
  if (current.impersonatorId === null || current.parentId === null) throw new ImpersonationError('Not signed in as another user', 400);
  await sql`UPDATE sessions SET revoked_at = now() WHERE id = ${current.sessionId}`;
  await audit(sql, { actorId: current.impersonatorId, action: 'auth.login_as_end', targetKind: 'user', targetId: current.user.id, before: { sessionId: current.sessionId }, ip: meta.ip });
  return rotateSessionToken(sql, current.parentId);
}

/** Who acts in a session: the staff member of a login-as session, else the signed-in user. */
export function actingUserId(s: Pick<CurrentSession, 'impersonatorId' | 'user'>): number {
  return s.impersonatorId ?? s.user.id;
}

/**
 * docs/specs.md#login-as: what only the customer may do is refused inside a login-as session,
 * before anything is written: a withdrawal request (and the bank details it pays out to), and a
 * PayPal payment, whose payer account is where withdrawals are paid back to
 * (payments/payouts.server.ts paypalReceivers).
 */
export const LOGIN_AS_REFUSALS = {
  withdrawal: 'Withdrawals must be requested by the customer: sign in as yourself',
  payoutAccount: 'Withdrawals are paid back to the PayPal account of a PayPal deposit, so the customer must make it: sign in as yourself',
} as const;

export function customerOnlyRefusal(s: Pick<CurrentSession, 'impersonatorId'>, what: keyof typeof LOGIN_AS_REFUSALS = 'withdrawal'): string | null {
  return s.impersonatorId === null ? null : LOGIN_AS_REFUSALS[what];
}

/** Who made a change, for auditLoginAs inside a module's transaction: the session and its address. */
export interface ChangeSource { session: Pick<CurrentSession, 'impersonatorId' | 'user'>; ip: string | null }

/**
 * docs/specs.md#login-as: a change made inside a login-as session writes one audit row with the
 * staff member as the actor and the customer as the target. The customer's own session writes
 * nothing here (modules that audit every change, the profile's, pass actingUserId instead).
 */
export async function auditLoginAs(
  sql: Db, s: Pick<CurrentSession, 'impersonatorId' | 'user'>, action: string, e: { before?: unknown; after?: unknown; ip?: string | null } = {},
): Promise<void> {
  if (s.impersonatorId === null) return;
  await audit(sql, { actorId: s.impersonatorId, action, targetKind: 'user', targetId: s.user.id, before: e.before, after: e.after, ip: e.ip && isIP(e.ip) ? e.ip : null });
}
