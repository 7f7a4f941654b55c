import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { gatewaysAction, gatewaysLoader } from '~/modules/gateways/gateways.server.ts';
import { GatewaysPage } from '~/modules/gateways/gateways-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';
import { db } from '~/shared/db.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/gateways/manual');

// /admin/gateways/manual — the manual payment gateways' cards and settings (docs/specs.md#payment-gateways), admin only.
export const loader = (args: LoaderFunctionArgs) => gatewaysLoader(args, true);
// numbers typed on the page are read in its language (docs/specs.md#number-input)
export const action = async (args: ActionFunctionArgs) => gatewaysAction(args, true, await requestLocale(args.request, db()));

export default function Page() {
  return <GatewaysPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
