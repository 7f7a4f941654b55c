import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { answer } from '~/shared/reply.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { leadScreenAction, loadLeadScreen } from '~/modules/crm/route.server.ts';
import { LeadTablePage } from '~/modules/crm/lead-table.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/affiliate');

// /affiliate — the affiliate's own leads (role 4): the CRM lead table over the 'affiliate' screen of
// modules/crm (their leads only, the columns an affiliate sees, delete = DELETE /affiliate/leads/{id}).
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const { user } = await requireAccess(request, sql, context);
  return answer(await loadLeadScreen(sql, user, 'affiliate', new URL(request.url).searchParams));
}

export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const { user } = await requireAccess(request, sql, context);
  const form = await readFormData(request);
  return leadScreenAction(sql, user, 'affiliate', form, new URL(request.url).searchParams, clientIp(request, context));
}

export default function Page() {
  return <LeadTablePage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
