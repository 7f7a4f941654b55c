import { redirect, redirectDocument, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { customerOnlyRefusal } from '~/modules/auth/impersonation.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { parseForm } from '~/shared/forms.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal } from '~/shared/result.server.ts';
import { checkDeposit, createDeposit } from '~/modules/money/money.server.ts';
import { abandonPayment, gatewayReady, publicOrigin, startPayment } from '~/modules/payments/payments.server.ts';
import { browserStart } from '~/modules/payments/mocks.server.ts';
import { saveFormStart, startPath } from '~/modules/payments/start.server.ts';
import { customerDeposits, depositForm, manualGatewayPath } from '~/modules/money/deposits.server.ts';
import { DepositSchema } from '~/modules/money/deposit-schemas.ts';
import { DepositsPage } from '~/modules/money/deposit-client.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';
import { numberReader } from '~/components/ui/number-input.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/deposits');

// /deposits — the Deposit tab (wallet, gateway, amount with its fee; external payments) and the
// History tab (the user's own deposits, 15 a page, date filter), the tab in the URL.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const tab = new URL(request.url).searchParams.get('tab') === 'history' ? 'history' as const : 'deposit' as const;
  // a bad page is clamped, a bad date refused with its message (400)
  const q = tab === 'history' ? listQuery(request, [], '', { dates: true }) : null;
  const [form, history] = await Promise.all([
    depositForm(sql, s.user.id),
    q ? customerDeposits(sql, s.user.id, q) : null,
  ]);
  return { tab, ...form, history, range: { dateStart: q?.dateStart ?? '', dateEnd: q?.dateEnd ?? '' } };
}

// POST /deposits (balance_id, gateway, amount): every rule of a deposit is checked here first;
// a manual gateway then takes the customer to its page, where the deposit is made.
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const submission = parseForm(await readFormData(request), DepositSchema, { numbers: numberReader(await requestLocale(request, sql)) });
  if (submission.status !== 'success') return replyRefused(submission);
  const { balance_id: balanceId, gateway, amount } = submission.value;
  // the payer of a PayPal deposit is where withdrawals are paid back to: the customer's own (docs/specs.md#login-as)
  const refusal = gateway === 'paypal' ? customerOnlyRefusal(s, 'payoutAccount') : null;
  if (refusal) return replyRefused(submission, { status: 403, toast: refusal, fieldErrors: { gateway: [refusal] } });
  const checked = await checkDeposit(sql, { userId: s.user.id, balanceId, gateway, amount });
  if (!checked.ok) {
    return replyRefusal(submission, checked);
  }
  const next = checked.gateway.manual ? manualGatewayPath(checked.gateway, checked.wallet.id, checked.fees.amount) : null;
  if (next) return redirect(next);
  // card and wallet gateways with an adapter (modules/payments): a pending deposit with the same fee
  // rules, then the provider's checkout (a redirect), the start page of a provider's form (Perfect
  // Money), or the wallet payment page (PayPal)
  const notAvailable = () => replyRefused(submission, { status: 400, toast: 'This gateway is not available yet', fieldErrors: { gateway: ['This gateway is not available yet'] } });
  if (!(await gatewayReady(sql, gateway))) return notAvailable();
  const created = await createDeposit(sql, { userId: s.user.id, balanceId, gateway, amount, source: { session: s, ip: clientIp(request, context) } });
  if (!created.ok) return replyRefused(submission, { status: created.status, toast: created.message });
  if (gateway === 'paypal') return redirect(`/deposits/paypal/${created.id}`);
  const started = await startPayment(sql, { depositId: created.id, gateway, origin: await publicOrigin(sql) });
  if (!started.ok) {
    await abandonPayment(sql, created.id, started.message);
    return replyRefused(submission, { status: 503, toast: started.message });
  }
  const start = await browserStart(started.start);
  // a form the browser posts to the provider (Perfect Money's SCI): the start page submits it
  if (start.kind === 'form') {
    await saveFormStart(sql, created.id, start);
    return redirect(startPath(created.id));
  }
  // a document navigation: the provider's page (or the mock's, same origin) is not a route of this app
  return redirectDocument(start.url);
}

export default function Page() {
  const data = useLoaderData<typeof loader>();
  const reply = useActionData<typeof action>();
  return <DepositsPage data={data} reply={reply} />;
}

export const meta = pageMeta('Deposits');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
