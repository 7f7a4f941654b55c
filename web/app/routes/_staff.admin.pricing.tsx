import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { plansAction, plansLoader } from '~/modules/plans/plans-admin.server.ts';
import { PlansPage } from '~/modules/plans/plans-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';
import { db } from '~/shared/db.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/pricing');

// /admin/pricing — the pricing plans (docs/specs.md#trading-configuration), admin only as the navigation table says.
export const loader = (args: LoaderFunctionArgs) => plansLoader(args);
// numbers typed on the page are read in its language (docs/specs.md#number-input)
export const action = async (args: ActionFunctionArgs) => plansAction(args, await requestLocale(args.request, db()));

export default function Page() {
  return <PlansPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
