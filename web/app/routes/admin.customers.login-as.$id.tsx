// POST /admin/customers/login-as/{id}: a staff member opens a customer's client area.
import { redirect, type ActionFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireCustomerRecord } from '~/modules/auth/guards.server.ts';
import { ImpersonationError, startImpersonation } from '~/modules/auth/impersonation.server.ts';
import { sessionCookie } from '~/shared/cookies.server.ts';
import { redirectWithToast } from '~/shared/toast.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/customers/login-as/:id');

export async function action({ request, params, context }: ActionFunctionArgs) {
  const sql = db();
  // the same scope as the customer's page: a record this role may not see is 404
  const { session: staff, customerId: id } = await requireCustomerRecord(request, params.id, sql, context);
  try {
    const s = await startImpersonation(sql, staff, id, { ip: clientIp(request, context), userAgent: request.headers.get('user-agent') });
    return redirect('/dashboard', { headers: { 'set-cookie': sessionCookie(s.token, false) } });
  } catch (e) {
    if (e instanceof ImpersonationError) {
      if (e.status === 403) throw new Response('Forbidden', { status: 403 });
      return redirectWithToast(`/admin/customers/edit/${id}`, { type: 'error', title: e.message });
    }
    throw e;
  }
}

export async function loader() {
  throw new Response('Method Not Allowed', { status: 405 });
}
