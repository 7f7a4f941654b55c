import { redirect, type LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { notFound, requireAccess } from '~/modules/auth/guards.server.ts';
import { returnTo } from '~/modules/payments/payments.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/payments/return/:depositId');

// GET /payments/return/:depositId[?cancelled=1] — where a card provider (Stripe) sends the customer
// back: the deposit's state (the provider asked when no notification arrived yet), shown by the
// Deposits page's result modal: 'Deposit Successful', 'Deposit Submitted' or 'Deposit Failed'.
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const id = /^[1-9][0-9]{0,15}$/.test(params.depositId ?? '') ? Number(params.depositId) : null;
  if (id === null) throw notFound();
  const cancelled = new URL(request.url).searchParams.get('cancelled') === '1';
  const to = await returnTo(sql, s.user.id, id, cancelled);
  if (!to) throw notFound();
  return redirect(to);
}
