import { redirectDocument, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { db, type Sql } from '~/shared/db.server.ts';
import { notFound, requireAccess } from '~/modules/auth/guards.server.ts';
import { customerOnlyRefusal } from '~/modules/auth/impersonation.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { z } from 'zod';
import { replyRefused } from '~/shared/reply.server.ts';
import { parseForm } from '~/shared/forms.ts';
import { publicOrigin, startPayment } from '~/modules/payments/payments.server.ts';
import { gatewayConfig } from '~/modules/gateways/gateways.server.ts';
import { PaypalPaymentPage, type PaypalPageData } from '~/modules/payments/paypal-page.tsx';
import type { DepositStatus } from '~/modules/money/deposits.server.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/deposits/paypal/:txRef');

// /deposits/paypal/:txRef (:txRef the deposit id) — the card-wallet payment page of a PayPal
// deposit (docs/specs.md#money); POST creates the PayPal order and sends the customer to approve it.

async function ownDeposit(sql: Sql, userId: number, txRef: string | undefined) {
  if (!/^[1-9][0-9]{0,15}$/.test(txRef ?? '')) throw notFound();
  const [d] = await sql`SELECT d.id, d.amount::text AS amount, d.fee::text AS fee, d.total::text AS total, d.status, trim(b.currency) AS currency
                          FROM deposits d JOIN balances b ON b.id = d.balance_id
                         WHERE d.id = ${Number(txRef)} AND d.user_id = ${userId} AND d.gateway = 'paypal'`;
  if (!d) throw notFound();
  return { id: Number(d.id), amount: d.amount, fee: d.fee, total: d.total, currency: d.currency, status: d.status as DepositStatus };
}

export async function loader({ request, params, context }: LoaderFunctionArgs): Promise<PaypalPageData> {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const deposit = await ownDeposit(sql, s.user.id, params.txRef);
  return { deposit, feePercent: (await gatewayConfig(sql, 'paypal'))?.fee ?? '0' };
}

const PayNow = z.object({});

export async function action({ request, params, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const deposit = await ownDeposit(sql, s.user.id, params.txRef);
  const submission = parseForm(await readFormData(request), PayNow);
  if (deposit.status !== 'pending') return replyRefused(submission, { status: 409, toast: 'This deposit was already decided' });
  // the payer is where withdrawals are paid back to: the customer's own (docs/specs.md#login-as)
  const refusal = customerOnlyRefusal(s, 'payoutAccount');
  if (refusal) return replyRefused(submission, { status: 403, toast: refusal });
  const started = await startPayment(sql, { depositId: deposit.id, gateway: 'paypal', origin: await publicOrigin(sql) });
  if (!started.ok || started.start.kind !== 'redirect') return replyRefused(submission, { status: 503, toast: started.ok ? 'This gateway is not available yet' : started.message });
  // a document navigation: the provider's page (or the mock's, same origin) is not a route of this app
  return redirectDocument(started.start.url);
}

export default function Page() {
  const data = useLoaderData<typeof loader>();
  const reply = useActionData<typeof action>();
  return <PaypalPaymentPage data={data} reply={reply} />;
}

export const meta = pageMeta('Wallet Payment');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
