// POST /authManager/back-to-admin: ends a login-as session and hands the staff session back,
// landing on the record of the customer it left (Edit Customer), or the staff member's role home
// when their role does not open customer records.
import { redirect, type ActionFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { assertSameOrigin, clientIp } from '~/shared/request.server.ts';
import { requireUser } from '~/modules/auth/guards.server.ts';
import { endImpersonation, ImpersonationError } from '~/modules/auth/impersonation.server.ts';
import { clearSessionCookie, sessionCookie } from '~/shared/cookies.server.ts';
import { accessFor, routeAccess, ROLE_HOME, type RoleId } from '~/modules/auth/permissions.ts';
import { redirectWithToast } from '~/shared/toast.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/authManager/back-to-admin');

export async function action({ request, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const sql = db();
  const s = await requireUser(request, sql, context);
  try {
    const back = await endImpersonation(sql, s, { ip: clientIp(request, context) });
    if (!back) return redirect('/', { headers: { 'set-cookie': clearSessionCookie() } });
    // back where they came from: the customer's record (login-as needs the customer in scope, so
    // it opens for them), else their role's own home (a manager may not open /admin)
    const record = `/admin/customers/edit/${s.user.id}`;
    const to = accessFor(record, back.roleId).allowed ? record : ROLE_HOME[back.roleId as RoleId] ?? '/dashboard';
    return redirect(to, { headers: { 'set-cookie': sessionCookie(back.token, back.remember) } });
  } catch (e) {
    if (e instanceof ImpersonationError) return redirectWithToast('/dashboard', { type: 'error', title: 'Something went wrong' });
    throw e;
  }
}

export async function loader() {
  return redirect('/');
}
