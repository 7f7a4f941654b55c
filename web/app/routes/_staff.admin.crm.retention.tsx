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
export const access = routeAccess('/admin/crm/retention');

// /admin/crm/retention — a lead screen of modules/crm (roles from the permission map).
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const { user } = await requireAccess(request, sql, context);
  return answer(await loadLeadScreen(sql, user, 'retention', new URL(request.url).searchParams));
}

export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const { user } = await requireAccess(request, sql, context);
  const form = await readFormData(request);
  return leadScreenAction(sql, user, 'retention', form, new URL(request.url).searchParams, clientIp(request, context));
}

export default function Page() {
  return <LeadTablePage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
