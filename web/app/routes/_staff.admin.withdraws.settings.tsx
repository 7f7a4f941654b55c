import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { parseForm } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { withdrawFees } from '~/modules/money/money.server.ts';
import { saveWithdrawFees, WITHDRAW_TOASTS } from '~/modules/money/withdrawals.server.ts';
import { FeeSettingsSchema, WITHDRAW_PARSE } from '~/modules/money/withdrawal-schemas.ts';
import { WithdrawSettingsPage } from '~/modules/money/withdrawal-staff.tsx';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';
import { numberReader } from '~/components/ui/number-input.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/withdraws/settings');

// /admin/withdraws/settings (admin only) — Fee (%) and Fee (Fixed) of every withdrawal
// (docs/specs.md#money: fee = % / 100 × amount + fixed), saved with an audit row.
export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql);
  return { fees: await withdrawFees(sql) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const submission = parseForm(await readFormData(request), FeeSettingsSchema, { ...WITHDRAW_PARSE, numbers: numberReader(await requestLocale(request, sql)) });
  if (submission.status !== 'success') return replyRefused(submission);
  await saveWithdrawFees(sql, submission.value, s.user.id, clientIp(request, context));
  return replyDone(submission, WITHDRAW_TOASTS.settings);
}

export default function Page() {
  const { fees } = useLoaderData<typeof loader>();
  return <WithdrawSettingsPage fees={fees} />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
