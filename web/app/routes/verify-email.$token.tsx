// The email-verification link: marks the address verified and goes to sign-in with a toast.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { redirectWithToast } from '~/shared/toast.server.ts';
import { AuthError, verifyEmail } from '~/modules/auth/auth.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/verify-email/:token');

export async function loader({ params }: LoaderFunctionArgs) {
  try {
    await verifyEmail(db(), params.token ?? '');
    return redirectWithToast('/', { type: 'success', title: 'Your email address has been verified. You can now sign in.' });
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    return redirectWithToast('/', { type: 'error', title: e.message });
  }
}
