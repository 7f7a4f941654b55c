// POST /dashboard/switch-wallet: the chosen balance (one of the user's own) becomes active; the page reloads.
import { redirect, type ActionFunctionArgs } from '@remix-run/node';
import { z } from 'zod';
import { db } from '~/shared/db.server.ts';
import { assertSameOrigin, clientIp } from '~/shared/request.server.ts';
import { requireUser } from '~/modules/auth/guards.server.ts';
import { auditLoginAs } from '~/modules/auth/impersonation.server.ts';
import { switchWallet } from '~/modules/accounts/accounts.server.ts';
import { redirectWithToast } from '~/shared/toast.server.ts';
import { safeRedirect } from '~/shared/safe-redirect.ts';
import { parseForm, RECORD_ID } from '~/shared/forms.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/dashboard/switch-wallet');

const SwitchWalletSchema = z.object({ balanceId: RECORD_ID, redirectTo: z.string().optional() });

export async function action({ request }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const sql = db();
  const s = await requireUser(request, sql);
  const form = await readFormData(request);
  const to = safeRedirect(form.get('redirectTo'), '/dashboard');
  const submission = parseForm(form, SwitchWalletSchema);
  // a page reload either way (the form posts without JavaScript too): a refusal is a flash toast
  const ok = submission.status === 'success' && await switchWallet(sql, s.user.id, submission.value.balanceId);
  if (!ok) return redirectWithToast(to, { type: 'error', title: 'Something went wrong' });
  await auditLoginAs(sql, s, 'wallet.switch', { after: { balanceId: submission.value.balanceId }, ip: clientIp(request) });
  return redirect(to);
}

export async function loader() {
  return redirect('/dashboard');
}
