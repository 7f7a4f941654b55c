import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { z } from 'zod';
import { db } from '~/utils/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { pageMeta } from '~/modules/shell/meta.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { parseForm } from '~/components/ui/forms.ts';
import { replyDone, replyRefused } from '~/utils/reply.server.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { customerWithdrawals, submitWithdrawal, withdrawForm, WITHDRAW_TOASTS } from '~/modules/money/withdrawals.server.ts';
import { WithdrawSchema, WITHDRAW_PARSE } from '~/modules/money/withdrawal-schemas.ts';
import { WithdrawsPage } from '~/modules/money/withdrawal-client.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/withdraws');

// /withdraws — tabs Withdraw (the bank withdrawal form) and History (the user's own withdrawals,
// 15 a page); the tab is in the URL. The rules are money.server.ts's requestWithdrawal.
export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql);
  const q = listQuery(request, [], '', { extra: { tab: z.enum(['withdraw', 'history']).catch('withdraw') } });
  if (q.tab === 'history') {
    return { tab: q.tab, form: null, history: await customerWithdrawals(sql, s.user.id, q) };
  }
  return { tab: q.tab, form: await withdrawForm(sql, s.user.id), history: null };
}

// POST /withdraws: a bank withdrawal request; the total is held at once (money.server.ts).
export async function action({ request }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql);
  const submission = parseForm(await request.formData(), WithdrawSchema, WITHDRAW_PARSE);
  if (submission.status !== 'success') return replyRefused(submission);
  const r = await submitWithdrawal(sql, s.user.id, submission.value);
  if (!r.ok) {
    return replyRefused(submission, { status: r.status, toast: r.message, fieldErrors: r.field ? { [r.field]: [r.message] } : undefined });
  }
  return replyDone(submission, WITHDRAW_TOASTS.requested, { resetForm: true });
}

export default function Page() {
  const { tab, form, history } = useLoaderData<typeof loader>();
  return <WithdrawsPage tab={tab} form={form} history={history} />;
}

export const meta = pageMeta('Withdraws');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
