import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { db } from '~/utils/db.server.ts';
import { clientIp } from '~/utils/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { parseIntent } from '~/components/ui/forms.ts';
import { replyDone, replyRefused } from '~/utils/reply.server.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { decideWithdrawal, staffWithdrawals, STAFF_SORTS } from '~/modules/money/withdrawals.server.ts';
import { DecisionSchemas, WITHDRAW_PARSE } from '~/modules/money/withdrawal-schemas.ts';
import { StaffWithdrawalsPage } from '~/modules/money/withdrawal-staff.tsx';

// /admin/withdraws/pending (roles 1, 2) — the pending withdrawals: search by the customer's email
// or id, sort, page size and page in the URL; Approve (four-eyes above the site's threshold) and
// Decline with a reason (the total goes back to the wallet).
export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql);
  const q = listQuery(request, STAFF_SORTS);
  return staffWithdrawals(sql, { ...q, status: 'pending' });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const { intent, submission } = parseIntent(await request.formData(), DecisionSchemas, WITHDRAW_PARSE);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  const v = submission.value;
  const r = await decideWithdrawal(sql, {
    id: v.id, actorId: s.user.id, ip: clientIp(request, context), decision: v.intent, reason: v.intent === 'decline' ? v.declineReason : undefined,
  });
  if (!r.ok) return replyRefused(submission, { intent, status: r.status, toast: r.toast, fieldErrors: r.field ? { [r.field]: [r.toast] } : undefined });
  return replyDone(submission, r.toast, { intent });
}

export default function Page() {
  const data = useLoaderData<typeof loader>();
  return <StaffWithdrawalsPage mode="pending" data={data} />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
