// POST /dashboard/switch-wallet: the chosen balance (one of the user's own) becomes active; the page reloads.
import { redirect, type ActionFunctionArgs } from '@remix-run/node';
import { db } from '~/utils/db.server.ts';
import { assertSameOrigin } from '~/utils/request.server.ts';
import { requireUser } from '~/modules/auth/guards.server.ts';
import { switchWallet } from '~/modules/accounts/accounts.server.ts';
import { redirectWithToast } from '~/utils/toast.server.ts';
import { safeRedirect } from '~/utils/safe-redirect.ts';

export async function action({ request }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const sql = db();
  const s = await requireUser(request, sql);
  const form = await request.formData();
  const to = safeRedirect(form.get('redirectTo'), '/dashboard');
  const ok = await switchWallet(sql, s.user.id, Number(form.get('balanceId')));
  if (!ok) return redirectWithToast(to, { type: 'error', title: 'Something went wrong' });
  return redirect(to);
}

export async function loader() {
  return redirect('/dashboard');
}
