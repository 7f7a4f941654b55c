import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData, type ShouldRevalidateFunction } from '@remix-run/react';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal } from '~/shared/result.server.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { decideWithdrawal, staffWithdrawals, STAFF_SORTS, WITHDRAW_TOASTS } from '~/modules/money/withdrawals.server.ts';
import { DecisionSchemas, WITHDRAW_PARSE } from '~/modules/money/withdrawal-schemas.ts';
import { StaffWithdrawalsPage } from '~/modules/money/withdrawal-staff.tsx';
import { approveWithdrawal, payoutAccountName, payoutBankChoices, withPayouts, type ApproveResult } from '~/modules/payments/payouts.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/withdraws/pending');

// /admin/withdraws/pending (roles 1, 2) — the pending withdrawals: search by the customer's email
// or id, sort, page size and page in the URL; Approve (four-eyes above the site's threshold) and
// Decline with a reason (the total goes back to the wallet). Approving offers "Pay manually" or
// "Pay out through {gateway}" for the gateways that can pay this withdrawal (modules/payments/payouts.server.ts);
// a bank payout (Flutterwave) asks here for the provider's banks of the withdrawal's country and the
// account holder's name it resolves (payout_banks, payout_account: nothing changes).
export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql);
  const q = listQuery(request, STAFF_SORTS);
  const list = await staffWithdrawals(sql, { ...q, status: 'pending' });
  return { ...list, rows: await withPayouts(sql, list.rows) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const { intent, submission } = parseIntent(await readFormData(request), DecisionSchemas, WITHDRAW_PARSE);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  const v = submission.value;
  if (v.intent === 'payout_banks') {
    const c = await payoutBankChoices(sql, v.gateway, v.id);
    if (!c.ok) return replyRefused(submission, { intent, status: c.status, toast: c.message });
    return replyDone(submission, null, { intent, extra: { banks: c.banks, typed: { bankName: c.typed.bankName, accountNumber: c.typed.accountNumber, accountName: c.typed.accountName, country: c.typed.countryName }, canResolve: c.canResolve } });
  }
  if (v.intent === 'payout_account') {
    const r = await payoutAccountName(sql, v.gateway, v.id, v.bankCode);
    if (!r.ok) return replyRefused(submission, { intent, status: r.status, toast: r.message });
    return replyDone(submission, null, { intent, extra: { accountName: r.accountName } });
  }
  if (v.intent === 'approve') {
    // approve: paid manually or paid out through a gateway (four-eyes, the ledger and the audit are decideMoney's)
    const a = await approveWithdrawal(sql, { id: v.id, actorId: s.user.id, ip: clientIp(request, context), payout: v.payout ?? 'manual', bankCode: v.bankCode });
    if (!a.ok) return replyRefusal(submission, a, { intent });
    return replyDone(submission, approvedToast(a), { intent });
  }
  const r = await decideWithdrawal(sql, {
    id: v.id, actorId: s.user.id, ip: clientIp(request, context), decision: v.intent, reason: v.intent === 'decline' ? v.declineReason : undefined,
  });
  if (!r.ok) return replyRefused(submission, { intent, status: r.status, toast: r.toast, fieldErrors: r.field ? { [r.field]: [r.toast] } : undefined });
  return replyDone(submission, r.toast, { intent });
}

/** The approval's toast, with what happened to its payout. */
function approvedToast(a: Extract<ApproveResult, { ok: true }>): string {
  if (a.state === 'awaiting_second') return WITHDRAW_TOASTS.awaitingSecond;
  if (!a.payout) return WITHDRAW_TOASTS.approved;
  if (a.payout.status === 'failed') return 'Withdraw approved, but the payout failed: the total is back in the wallet';
  if (a.payout.status === 'requested') return 'Withdraw approved: the payout will be sent again shortly';
  if (a.payout.status === 'review') return 'Withdraw approved, but the payout needs review: nothing was refunded';
  return 'Withdraw approved and sent for payout';
}

/** The approve dialog's look-ups (a bank list, an account name) change nothing: the list is not reloaded after them. */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formData, defaultShouldRevalidate }) => {
  const intent = formData?.get('intent');
  return intent === 'payout_banks' || intent === 'payout_account' ? false : defaultShouldRevalidate;
};

export default function Page() {
  const data = useLoaderData<typeof loader>();
  return <StaffWithdrawalsPage mode="pending" data={data} />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
