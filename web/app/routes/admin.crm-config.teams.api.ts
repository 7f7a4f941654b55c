// GET /admin/crm-config/teams/api — the teams as JSON (admin only): modules/crm-config/api.server.ts.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { teamsApi } from '~/modules/crm-config/api.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm-config/teams/api');

export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return teamsApi(sql, s, new URL(request.url).searchParams);
}
