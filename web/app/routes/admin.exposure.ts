// GET /admin/exposure — the admin dashboard's open exposure as JSON, read afresh: the page asks
// for it when the stream's exposure topic says a position opened or closed (docs/specs.md#admin-dashboard).
// The dashboard's roles only (its entry in the permission map, the same as /admin's).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { exposureNow } from '~/modules/admin-dashboard/dashboard.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/exposure');

export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  return Response.json(await exposureNow(sql), { headers: { 'cache-control': 'no-store' } });
}
