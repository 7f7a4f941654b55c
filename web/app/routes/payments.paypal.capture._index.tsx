import { redirect, type LoaderFunctionArgs } from '@remix-run/node';
import { notFound } from '~/modules/auth/guards.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/payments/paypal/capture');

// GET /payments/paypal/capture?token={orderId}&PayerID=… — PayPal's return URL: PayPal appends the
// order id, the spec's page is /payments/paypal/capture/{orderId}.
export function loader({ request }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get('token') ?? '';
  if (!/^[A-Za-z0-9-]{5,64}$/.test(token)) throw notFound();
  return redirect(`/payments/paypal/capture/${token}`);
}
