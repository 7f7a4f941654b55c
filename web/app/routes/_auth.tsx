import { Outlet } from '@remix-run/react';
import { useRootData } from '~/root.tsx';
import { AuthLayout } from '~/modules/shell/layouts.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { LAYOUT_ACCESS } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = LAYOUT_ACCESS.public;

export default function AuthRoute() {
  const root = useRootData()!;
  return (
    <AuthLayout root={root}>
      <Outlet />
    </AuthLayout>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
