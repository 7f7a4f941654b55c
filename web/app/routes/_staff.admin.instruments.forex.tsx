import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { instrumentsAction, instrumentsLoader } from '~/modules/instruments/instruments-admin.server.ts';
import { InstrumentsPage } from '~/modules/instruments/instruments-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/instruments/forex');

// /admin/instruments/forex — the category's instruments (docs/specs.md#trading-configuration); the five categories share
// modules/instruments (one loader, one action, one page).
export const loader = (args: LoaderFunctionArgs) => instrumentsLoader(args, 'forex');
export const action = (args: ActionFunctionArgs) => instrumentsAction(args, 'forex');

export default function Page() {
  return <InstrumentsPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
