import { salesStatusesAction, salesStatusesLoader } from '~/modules/crm-config/sales-statuses.server.ts';
import { SalesStatusesPage } from '~/modules/crm-config/sales-statuses-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm-config/sales-statuses');

// /admin/crm-config/sales-statuses — Sales Statuses (roles 1, 2 from the permission map): modules/crm-config.
export const loader = salesStatusesLoader;
export const action = salesStatusesAction;

export default function Page() {
  return <SalesStatusesPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
