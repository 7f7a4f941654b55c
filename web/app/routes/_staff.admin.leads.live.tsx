import { leadsAction, leadsLoader } from '~/modules/crm/route.server.ts';
import { LeadTablePage } from '~/modules/crm/lead-table.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/leads/live');

// /admin/leads/live — a lead screen of modules/crm (roles from the permission map).
export const loader = leadsLoader('leads-live');
export const action = leadsAction('leads-live');

export default function Page() {
  return <LeadTablePage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
