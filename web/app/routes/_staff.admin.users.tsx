import { usersAction, usersLoader } from '~/modules/users/list.server.ts';
import { UsersPage } from '~/modules/users/users-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/users');

// /admin/users — Admin & Staffs (role 1 from the permission map): modules/users.
export const loader = usersLoader;
export const action = usersAction;

export default function Page() {
  return <UsersPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
