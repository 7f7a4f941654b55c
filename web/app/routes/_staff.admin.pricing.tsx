import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { plansAction, plansLoader } from '~/modules/plans/plans-admin.server.ts';
import { PlansPage } from '~/modules/plans/plans-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/pricing');

// /admin/pricing — the pricing plans (docs/specs.md#trading-configuration), admin only as the navigation table says.
export const loader = (args: LoaderFunctionArgs) => plansLoader(args);
export const action = (args: ActionFunctionArgs) => plansAction(args);

export default function Page() {
  return <PlansPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
