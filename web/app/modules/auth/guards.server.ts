// Guards throw Responses: not signed in → redirect to '/', wrong role → 403.
// Every loader and action under /admin and /affiliate (and the client area) calls requireAccess,
// which checks the request's path against the one permission map.
import { redirect } from '@remix-run/node';
import { db, type Sql } from '~/utils/db.server.ts';
import { assertSameOrigin } from '~/utils/request.server.ts';
import { accessFor, ROLE_HOME, type RoleId } from './permissions.ts';
import { getSession, type CurrentSession } from './session.server.ts';

const cache = new WeakMap<Request, Promise<CurrentSession | null>>();

/** The request's live session (looked up once per request). */
export function currentSession(request: Request, sql: Sql = db()): Promise<CurrentSession | null> {
  let p = cache.get(request);
  if (!p) {
    p = getSession(sql, request);
    cache.set(request, p);
  }
  return p;
}

export function forbidden(message = 'Forbidden'): Response {
  return new Response(message, { status: 403, statusText: 'Forbidden' });
}

export async function requireUser(request: Request, sql: Sql = db()): Promise<CurrentSession> {
  const s = await currentSession(request, sql);
  if (!s) throw redirect('/');
  return s;
}

/** Visitor pages: a signed-in user is sent to their home. */
export async function requireAnonymous(request: Request, sql: Sql = db()): Promise<void> {
  const s = await currentSession(request, sql);
  if (s) throw redirect(homeFor(s));
}

export function homeFor(s: CurrentSession): string {
  return ROLE_HOME[s.user.roleId as RoleId] ?? '/dashboard';
}

export async function requireRole(request: Request, roles: readonly number[], sql: Sql = db()): Promise<CurrentSession> {
  const s = await requireUser(request, sql);
  if (!roles.includes(s.user.roleId) || (s.impersonatorId !== null && !roles.includes(3))) throw forbidden();
  return s;
}

/**
 * The guard of every protected loader and action: signed in, and the permission map allows the
 * user's role on this request's path. Non-GET requests must also be same-origin.
 * An impersonated (login-as) session never reaches staff pages.
 */
export async function requireAccess(request: Request, sql: Sql = db()): Promise<CurrentSession> {
  assertSameOrigin(request);
  const s = await requireUser(request, sql);
  const path = new URL(request.url).pathname;
  const access = accessFor(path, s.user.roleId, s.user.id);
  if (!access.allowed) throw forbidden();
  if (access.area === 'staff' && s.impersonatorId !== null) throw forbidden();
  return s;
}
