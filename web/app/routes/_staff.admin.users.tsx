import { usersAction, usersLoader } from '~/modules/users/list.server.ts';
import { UsersPage } from '~/modules/users/users-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';

// /admin/users — Admin & Staffs (role 1 from the permission map): modules/users.
export const loader = usersLoader;
export const action = usersAction;

export default function Page() {
  return <UsersPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
