import { tradesAction, tradesLoader } from '~/modules/trades/route.server.ts';
import { TradesPage } from '~/modules/trades/trades-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/trades/open');

// /admin/trades/open — Open Trades (roles 1, 2 from the permission map): modules/trades.
export const loader = tradesLoader('open');
export const action = tradesAction;

export default function Page() {
  return <TradesPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
