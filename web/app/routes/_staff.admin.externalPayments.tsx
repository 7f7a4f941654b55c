import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { externalPaymentsAction, externalPaymentsLoader } from '~/modules/gateways/external-payments.server.ts';
import { ExternalPaymentsPage } from '~/modules/gateways/external-payments-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/externalPayments');

// /admin/externalPayments — the external payment links the customer's Deposit tab shows (docs/specs.md#payment-gateways), admin only.
export const loader = (args: LoaderFunctionArgs) => externalPaymentsLoader(args);
export const action = (args: ActionFunctionArgs) => externalPaymentsAction(args);

export default function Page() {
  return <ExternalPaymentsPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
