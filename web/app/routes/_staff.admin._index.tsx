import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { answer } from '~/shared/reply.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { dashboardLoader } from '~/modules/admin-dashboard/route.server.ts';
import { DashboardPage } from '~/modules/admin-dashboard/dashboard-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin');

// /admin — the admin dashboard (role 1 from the permission map): modules/admin-dashboard.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  return answer(await dashboardLoader(sql, new URL(request.url).searchParams));
}

export default function Page() {
  return <DashboardPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
