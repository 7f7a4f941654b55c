// Login-as: a staff member opens a customer's client area through a child session whose
// impersonator_id and parent_id point back at them. Ending it revokes the child and hands the
// staff session back under a fresh token. Both ends are audited.
import type { Sql } from '~/utils/db.server.ts';
import { audit } from '~/modules/audit/audit.server.ts';
import { createSession, rotateSessionToken, type CurrentSession } from './session.server.ts';

/**
 * The roles that may sign in as a customer (the customer edit page's Login as button): admins,
 * managers and retention agents (admin.md §4: for a retention agent the retention flag is kept,
 * and the customer's pages show the contact details masked: profile.server.ts phoneLocked).
 */
export const LOGIN_AS_ROLES = [1, 2, 6] as const;

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
  if (target.role_id !== 3) throw new ImpersonationError('Only customers can be signed in as', 400);
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
