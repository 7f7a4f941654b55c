// GET /admin/crm-config/sales-statuses/api — the sales statuses as JSON (roles 1, 2): modules/crm-config/api.server.ts.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { salesStatusesApi } from '~/modules/crm-config/api.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm-config/sales-statuses/api');

export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return salesStatusesApi(sql, s, new URL(request.url).searchParams);
}
