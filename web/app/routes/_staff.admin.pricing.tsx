import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { plansAction, plansLoader } from '~/modules/plans/plans-admin.server.ts';
import { PlansPage } from '~/modules/plans/plans-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';

// /admin/pricing — the pricing plans (docs/specs.md#trading-configuration), admin only as the navigation table says.
export const loader = (args: LoaderFunctionArgs) => plansLoader(args);
export const action = (args: ActionFunctionArgs) => plansAction(args);

export default function Page() {
  return <PlansPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
