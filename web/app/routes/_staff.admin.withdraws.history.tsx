import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { z } from 'zod';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { staffWithdrawals, STAFF_SORTS, WITHDRAWAL_STATUSES } from '~/modules/money/withdrawals.server.ts';
import { StaffWithdrawalsPage } from '~/modules/money/withdrawal-staff.tsx';
import { staffPayoutCheck, withPayouts } from '~/modules/payments/payouts.server.ts';
import { PayoutCheckSchemas, WITHDRAW_PARSE } from '~/modules/money/withdrawal-schemas.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/withdraws/history');

// /admin/withdraws/history (roles 1, 2) — every withdrawal, all statuses; no search
// (docs/specs.md#money); the status and date filters, sort, page size and page in the URL. Each row shows its
// payout when it was paid out through a gateway (modules/payments/payouts.server.ts).
export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql);
  const q = listQuery(request, STAFF_SORTS, '', {
    dates: true,
    // a filter selects the data: an unknown status is refused (400), never silently dropped
    extra: { status: z.enum(['', ...WITHDRAWAL_STATUSES] as [string, ...string[]], { errorMap: () => ({ message: 'Choose a status from the list' }) }).default('') },
  });
  const status = (q.status || null) as (typeof WITHDRAWAL_STATUSES)[number] | null;
  const list = await staffWithdrawals(sql, { ...q, search: '', status });
  return { ...list, rows: await withPayouts(sql, list.rows), filters: { status: status ?? ('' as const), dateStart: q.dateStart, dateEnd: q.dateEnd } };
}

// A payout's 'Check status' (roles 1, 2 as the page): sent again or asked about now, audited.
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const { intent, submission } = parseIntent(await readFormData(request), PayoutCheckSchemas, WITHDRAW_PARSE);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  const r = await staffPayoutCheck(sql, { id: submission.value.id, actorId: s.user.id, ip: clientIp(request, context) });
  if (!r.ok) return replyRefused(submission, { intent, status: r.status, toast: r.message });
  return replyDone(submission, PAYOUT_CHECK_TOAST[r.status], { intent });
}

const PAYOUT_CHECK_TOAST = {
  requested: 'The payout is not answered yet: it is retried automatically',
  sent: 'The payout is still in progress at the provider',
  review: 'The payout still needs review: the provider has not said whether it was paid',
  paid: 'The payout is paid',
  failed: 'The payout failed: the total is back in the wallet',
} as const;

export default function Page() {
  const data = useLoaderData<typeof loader>();
  return <StaffWithdrawalsPage mode="history" data={data} />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
