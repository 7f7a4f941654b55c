// /admin/customers/edit/:id — Edit Customer (roles 1, 2, 5, 6 from the permission map; which
// customers each role may open is requireCustomerRecord: any other id is 404): modules/customers.
import { editAction, editLoader } from '~/modules/customers/edit-route.server.ts';
import { EditCustomerPage } from '~/modules/customers/edit-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/customers/edit/:id');

export const loader = editLoader;
export const action = editAction;

export default function Page() {
  return <EditCustomerPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
