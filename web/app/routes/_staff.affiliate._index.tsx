import { leadsAction, leadsLoader } from '~/modules/crm/route.server.ts';
import { LeadTablePage } from '~/modules/crm/lead-table.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/affiliate');

// /affiliate — the affiliate's own leads (role 4): the CRM lead table over the 'affiliate' screen of
// modules/crm (their leads only, the columns an affiliate sees, delete = DELETE /affiliate/leads/{id}).
export const loader = leadsLoader('affiliate');
export const action = leadsAction('affiliate');

export default function Page() {
  return <LeadTablePage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
