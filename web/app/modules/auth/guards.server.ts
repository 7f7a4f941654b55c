// Guards throw Responses: not signed in → redirect to '/', wrong role → 403.
// Who may use a route is its declaration (permissions.ts `routeAccess`), enforced by the route
// gate (route-gate.server.ts) before the route's loader or action runs; requireAccess in that
// code checks the same declaration again and hands back the session.
import { redirect, type AppLoadContext } from '@remix-run/node';
import { db, type Sql } from '~/shared/db.server.ts';
import { assertSameOrigin, clientIp } from '~/shared/request.server.ts';
import { oncePerRequest } from '~/shared/request-scope.server.ts';
import { accessFor, ROLE_HOME, TWO_FACTOR_ENROL_PATH, type RouteAccess, type RoleId } from './permissions.ts';
import { currentRouteAccess } from './route-scope.server.ts';
import { getSession, type CurrentSession } from './session.server.ts';
import { enrolmentRequired } from './two-factor.server.ts';
import { isBackOffice, opensCustomerRecords, ROLE } from '~/shared/roles.ts';

const cache = new WeakMap<Request, Promise<CurrentSession | null>>();
const SESSION = Symbol('session');

/**
 * The request's live session, looked up once per HTTP request (the layout's and the page's loaders
 * share it) or, outside web/server.mjs, once per Request object. The staff IP whitelist is checked
 * against the request's address (request.server.ts clientIp: the load context, else the header
 * web/server.mjs sets on every request); only where neither exists (tests, the Vite dev server)
 * against the session's sign-in address.
 */
export function currentSession(request: Request, sql: Sql = db(), context?: AppLoadContext | null): Promise<CurrentSession | null> {
  return oncePerRequest(request, SESSION, () => {
    let p = cache.get(request);
    if (!p) {
      p = getSession(sql, request, clientIp(request, context));
      cache.set(request, p);
    }
    return p;
  });
}

export function forbidden(message = 'Forbidden'): Response {
  return new Response(message, { status: 403, statusText: 'Forbidden' });
}

export async function requireUser(request: Request, sql: Sql = db(), context?: AppLoadContext | null): Promise<CurrentSession> {
  const s = await currentSession(request, sql, context);
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

/**
 * Whether this request may use a route declared `access`: anyone for a public route; otherwise
 * signed in, with a role the declaration lists, and non-GET requests same-origin. An
 * impersonated (login-as) session never reaches staff routes. A staff member who must enrol in
 * two-factor sign-in first is sent to the enrolment page from any other page, and refused any
 * other call. Returns the session (null for a public route).
 */
export async function checkRouteAccess(access: RouteAccess, request: Request, context?: AppLoadContext | null, sql: Sql = db()): Promise<CurrentSession | null> {
  if (access.roles === 'public') return null;
  assertSameOrigin(request);
  const s = await requireUser(request, sql, context);
  // a layout (no path of its own) serves only the user's own shell; the page under it decides
  if (access.path !== null && access.path !== TWO_FACTOR_ENROL_PATH && (await enrolmentRequired(sql, s))) {
    const method = request.method.toUpperCase();
    throw method === 'GET' || method === 'HEAD' ? redirect(TWO_FACTOR_ENROL_PATH) : forbidden();
  }
  if (!access.roles.includes(s.user.roleId as RoleId)) throw forbidden();
  if (access.area === 'staff' && s.impersonatorId !== null) throw forbidden();
  return s;
}

/**
 * The guard of every protected loader and action: the declaration of the route being run (the
 * gate's), checked as checkRouteAccess does, and the signed-in session. Code run outside the
 * gate (a test calling a loader itself) is checked against the map entry of the request's path,
 * read as the router reads it; a path the map does not know is refused.
 */
export async function requireAccess(request: Request, sql: Sql = db(), context?: AppLoadContext | null): Promise<CurrentSession> {
  const access = currentRouteAccess() ?? accessFor(new URL(request.url).pathname, 0).rule;
  if (!access) {
    await requireUser(request, sql, context);
    throw forbidden();
  }
  // a public route's code that asks for a session still needs one
  return (await checkRouteAccess(access, request, context, sql)) ?? requireUser(request, sql, context);
}

export function notFound(): Response {
  return new Response('Not Found', { status: 404, statusText: 'Not Found' });
}

/**
 * The guard of every customer-record route (/admin/customers/edit/:id, /admin/customers/login-as/:id,
 * and the calls on one customer): the route's role check, then the record must be a customer
 * (role 3, not deleted) that this role may see: admins and managers any customer, a sales agent
 * the clients whose lead is assigned to them, a retention agent those they are the retention agent
 * of (docs/specs.md#customer-records). Staff records are edited under Admin & Staffs only. Anything else, and any id
 * that is not a record id, answers 404: the answer does not tell which records exist.
 */
export async function requireCustomerRecord(
  request: Request, idParam: string | undefined, sql: Sql = db(), context?: AppLoadContext | null,
): Promise<{ session: CurrentSession; customerId: number }> {
  const session = await requireAccess(request, sql, context);
  const id = recordId(idParam);
  if (id === null || !(await customerVisibleTo(sql, session, id))) throw notFound();
  return { session, customerId: id };
}

/** Whether the session's user may open customer `id` (see requireCustomerRecord). */
export async function customerVisibleTo(sql: Sql, s: CurrentSession, id: number): Promise<boolean> {
  const role = s.user.roleId;
  if (!opensCustomerRecords(role) || s.impersonatorId !== null) return false;
  const [row] = await sql`
    SELECT 1 FROM users c
     WHERE c.id = ${id} AND c.role_id = ${ROLE.customer} AND c.deleted_at IS NULL
       AND (${isBackOffice(role)}
            OR (${role === ROLE.sales} AND EXISTS (SELECT 1 FROM leads l WHERE l.user_id = c.id AND l.agent_id = ${s.user.id}))
            OR (${role === ROLE.retention} AND EXISTS (SELECT 1 FROM leads l WHERE l.user_id = c.id AND l.ret_id = ${s.user.id})))`;
  return !!row;
}

/** A positive bigint id in canonical decimal form, else null. */
function recordId(param: string | undefined): number | null {
  if (!param || !/^[1-9][0-9]{0,15}$/.test(param)) return null;
  const n = Number(param);
  return Number.isSafeInteger(n) ? n : null;
}
