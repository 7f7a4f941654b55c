import { leadsAction, leadsLoader } from '~/modules/crm/route.server.ts';
import { LeadTablePage } from '~/modules/crm/lead-table.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm/sales/manual');

// /admin/crm/sales/manual — a lead screen of modules/crm (roles from the permission map).
export const loader = leadsLoader('sales-manual');
export const action = leadsAction('sales-manual');

export default function Page() {
  return <LeadTablePage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
