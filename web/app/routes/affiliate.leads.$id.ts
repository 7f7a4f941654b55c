// DELETE /affiliate/leads/{id} (docs/specs.md#affiliates-and-the-leads-api): an affiliate soft-deletes one of their own leads. The page
// (/affiliate) does the same through its form; this is the call as the spec names it. Same-origin and
// the role from the permission map (requireAccess); another affiliate's id → 404, nothing changes.
import type { ActionFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { deleteOwnLead } from '~/modules/crm/leads.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/affiliate/leads/:id');

const ID = /^[1-9][0-9]{0,15}$/;

export async function action({ request, params, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  if (request.method !== 'DELETE') return Response.json({ message: 'Method not allowed' }, { status: 405, headers: { allow: 'DELETE' } });
  const id = params.id ?? '';
  if (!ID.test(id) || !Number.isSafeInteger(Number(id))) return Response.json({ message: 'Lead not found' }, { status: 404 });
  const r = await deleteOwnLead(sql, { id: s.user.id, roleId: s.user.roleId }, Number(id), clientIp(request, context));
  return r.ok ? Response.json({ message: r.toast }) : Response.json({ message: r.message }, { status: r.status });
}

export async function loader() {
  return new Response('Not Found', { status: 404 });
}
