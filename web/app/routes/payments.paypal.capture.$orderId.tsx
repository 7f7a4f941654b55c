import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { notFound, requireAccess } from '~/modules/auth/guards.server.ts';
import { capturePaypal } from '~/modules/payments/payments.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/payments/paypal/capture/:orderId');

// /payments/paypal/capture/{orderId} (docs/specs.md#money, card-wallet payment): the customer approved
// the PayPal order; it is captured through the adapter and the capture goes through the payments
// pipeline (amount and currency checked, credited once). Then the Deposits page's result modal.
async function capture({ request, params, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const orderId = params.orderId ?? '';
  if (!/^[A-Za-z0-9-]{5,64}$/.test(orderId)) throw notFound();
  const to = await capturePaypal(sql, s.user.id, orderId);
  if (!to) throw notFound();
  return redirect(to);
}

export const loader = capture;
export const action = (args: ActionFunctionArgs) => capture(args);
