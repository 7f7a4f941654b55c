import type { LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { z } from 'zod';
import { db } from '~/utils/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { staffWithdrawals, STAFF_SORTS, WITHDRAWAL_STATUSES } from '~/modules/money/withdrawals.server.ts';
import { StaffWithdrawalsPage } from '~/modules/money/withdrawal-staff.tsx';
import { withPayouts } from '~/modules/payments/payouts.server.ts';

// /admin/withdraws/history (roles 1, 2) — every withdrawal, all statuses; no search (admin.md
// §2.7); the status and date filters, sort, page size and page in the URL. Each row shows its
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

export default function Page() {
  const data = useLoaderData<typeof loader>();
  return <StaffWithdrawalsPage mode="history" data={data} />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
