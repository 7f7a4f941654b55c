import { dashboardLoader } from '~/modules/admin-dashboard/route.server.ts';
import { DashboardPage } from '~/modules/admin-dashboard/dashboard-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin');

// /admin — the admin dashboard (role 1 from the permission map): modules/admin-dashboard.
export const loader = dashboardLoader;

export default function Page() {
  return <DashboardPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
