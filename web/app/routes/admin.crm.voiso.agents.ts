// GET /admin/crm/voiso/agents (docs/specs.md#crm-lead-lists) — Voiso's agents with their status for the call dialog
// (admins and managers; an agent calls as themselves): modules/crm/voiso.server.ts.
import { data, type LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { listVoisoAgents } from '~/modules/crm/voiso.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { isBackOffice } from '~/shared/roles.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm/voiso/agents');

export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  if (!isBackOffice(s.user.roleId)) throw new Response('Forbidden', { status: 403 });
  const r = await listVoisoAgents(sql);
  return data(r, { headers: { 'Cache-Control': 'no-store' } });
}
