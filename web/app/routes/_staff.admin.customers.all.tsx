import { customersAction, customersLoader } from '~/modules/customers/list.server.ts';
import { CustomersPage } from '~/modules/customers/list-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/customers/all');

// /admin/customers/all — roles 1, 2 from the permission map: modules/customers.
export const loader = customersLoader('all');
export const action = customersAction;

export default function Page() {
  return <CustomersPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
