import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { z } from 'zod';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { replyOutcome, replyRefusal } from '~/shared/result.server.ts';
import { decideMoney } from '~/modules/money/money.server.ts';
import { DEPOSIT_STATUSES, STAFF_SORTS, staffDeposits, type DepositStatus } from '~/modules/money/deposits.server.ts';
import { DecisionSchemas } from '~/modules/money/deposit-schemas.ts';
import { StaffDepositsPage } from '~/modules/money/deposit-staff.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { readFormData } from '~/shared/body-limit.server.ts';
import { debitDispute } from '~/modules/payments/disputes.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/deposits');

// /admin/deposits (roles from the permission map) — every deposit, server-paged: search by the
// customer's email, an id or a reference; status and date filters; sort by id or date.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  const q = listQuery(request, STAFF_SORTS, '', {
    dates: true,
    extra: { status: z.enum(DEPOSIT_STATUSES as [DepositStatus, ...DepositStatus[]]).optional().catch(undefined) },
  });
  const list = await staffDeposits(sql, q);
  return { ...list, filters: { status: q.status ?? ('' as const), dateStart: q.dateStart, dateEnd: q.dateEnd } };
}

// POST /admin/deposits (intent approve | decline, id, declineReason?): the staff member's decision;
// intent debitDispute (id): a flagged deposit's chargeback / refund debited from the wallet, once.
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const { intent, submission } = parseIntent(await readFormData(request), DecisionSchemas);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  const v = submission.value as { id: number; declineReason?: string };
  if (intent === 'debitDispute') {
    const d = await debitDispute(sql, { id: s.user.id, roleId: s.user.roleId, ip: clientIp(request, context) }, v.id);
    return replyOutcome(submission, d, intent);
  }
  const r = await decideMoney(sql, {
    kind: 'deposit', id: v.id, actorId: s.user.id, ip: clientIp(request, context),
    decision: intent === 'approve' ? 'approve' : 'decline', reason: v.declineReason,
  });
  if (!r.ok) return replyRefusal(submission, r, { intent });
  // the spec's words: a declined deposit says 'Withdraw declined successfully'
  const toast = r.state === 'awaiting_second' ? 'Awaiting second approval' : r.state === 'approved' ? 'Deposit approved successfully' : 'Withdraw declined successfully';
  return replyDone(submission, toast, { intent });
}

export default function Page() {
  return <StaffDepositsPage data={useLoaderData<typeof loader>()} />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
