import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';
import { useLoaderData } from '@remix-run/react';
import { z } from 'zod';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { parseForm } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal } from '~/shared/result.server.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { customerWithdrawals, submitWithdrawal, withdrawForm, WITHDRAW_TOASTS } from '~/modules/money/withdrawals.server.ts';
import { WithdrawSchema, WITHDRAW_PARSE } from '~/modules/money/withdrawal-schemas.ts';
import { WithdrawsPage } from '~/modules/money/withdrawal-client.tsx';
import { customerOnlyRefusal } from '~/modules/auth/impersonation.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { numberReader } from '~/components/ui/number-input.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/withdraws');

// /withdraws — tabs Withdraw (the bank withdrawal form) and History (the user's own withdrawals,
// 15 a page); the tab is in the URL. The rules are money.server.ts's requestWithdrawal.
export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql);
  const q = listQuery(request, [], '', { extra: { tab: z.enum(['withdraw', 'history']).catch('withdraw') } });
  if (q.tab === 'history') {
    return { tab: q.tab, form: null, history: await customerWithdrawals(sql, s.user.id, q), refusal: null };
  }
  // inside login-as the Withdraw tab says why instead of offering the form (docs/specs.md#login-as)
  const refusal = customerOnlyRefusal(s, 'withdrawal');
  return { tab: q.tab, form: refusal ? null : await withdrawForm(sql, s.user.id, undefined, await requestLocale(request, sql)), history: null, refusal };
}

// POST /withdraws: a bank withdrawal request; the total is held at once (money.server.ts).
export async function action({ request }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql);
  const submission = parseForm(await readFormData(request), WithdrawSchema, { ...WITHDRAW_PARSE, numbers: numberReader(await requestLocale(request, sql)) });
  // a withdrawal (and the bank it pays out to) is the customer's own: refused inside login-as
  const refusal = customerOnlyRefusal(s, 'withdrawal');
  if (refusal) return replyRefused(submission, { status: 403, toast: refusal });
  if (submission.status !== 'success') return replyRefused(submission);
  const r = await submitWithdrawal(sql, s.user.id, submission.value);
  if (!r.ok) {
    return replyRefusal(submission, r);
  }
  return replyDone(submission, WITHDRAW_TOASTS.requested, { resetForm: true });
}

export default function Page() {
  const { tab, form, history, refusal } = useLoaderData<typeof loader>();
  return <WithdrawsPage tab={tab} form={form} history={history} refusal={refusal} />;
}

export const meta = pageMeta('Withdraws');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
