import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { instrumentsAction, instrumentsLoader } from '~/modules/instruments/instruments-admin.server.ts';
import { InstrumentsPage } from '~/modules/instruments/instruments-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';
import { db } from '~/shared/db.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/instruments/index');

// /admin/instruments/index — the category's instruments (docs/specs.md#trading-configuration); the five categories share
// modules/instruments (one loader, one action, one page).
export const loader = (args: LoaderFunctionArgs) => instrumentsLoader(args, 'index');
// numbers typed on the page are read in its language (docs/specs.md#number-input)
export const action = async (args: ActionFunctionArgs) => instrumentsAction(args, 'index', await requestLocale(args.request, db()));

export default function Page() {
  return <InstrumentsPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
