import { Outlet } from '@remix-run/react';
import { useRootData } from '~/root.tsx';
import { AuthLayout } from '~/modules/shell/layouts.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';

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
