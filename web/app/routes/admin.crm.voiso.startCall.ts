// POST /admin/crm/voiso/startCall (docs/specs.md#crm-lead-lists) — starts a Voiso call for a lead: modules/crm/voiso.server.ts.
// The browser posts the lead's id (never a number) and, for admins and managers, the agent.
import { data, type ActionFunctionArgs } from '@remix-run/node';
import { z } from 'zod';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { RECORD_ID, parseForm, type Reply } from '~/shared/forms.ts';
import { CALL_TOASTS, startCall } from '~/modules/crm/voiso.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm/voiso/startCall');

const Schema = z.object({ leadId: RECORD_ID, agent: z.string().trim().max(260).optional() });

export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method.toUpperCase() !== 'POST') throw new Response('Method Not Allowed', { status: 405 });
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const submission = parseForm(await readFormData(request), Schema);
  if (submission.status !== 'success') throw new Response('Not Found', { status: 404 });
  const r = await startCall(sql, { id: s.user.id, roleId: s.user.roleId }, submission.value.leadId, submission.value.agent ?? null, { ip: clientIp(request, context) });
  if (!r.ok && r.status === 404) throw new Response('Not Found', { status: 404 });
  const body: Reply = r.ok ? { ok: true, toast: CALL_TOASTS.started } : { ok: false, toast: r.message };
  return data(body, { status: r.ok ? 200 : r.status });
}

export function loader() {
  throw new Response('Not Found', { status: 404 });
}
