// The usual spellings of a sign-in URL (/login, /signin, /sign-in and the same under /admin; the
// router matches them in any case) are one permanent redirect to '/', where sign-in lives,
// keeping the query (a link's redirectTo). A 404 there sent people away from the way in.
import { redirect } from '@remix-run/node';

export const SIGN_IN_ALIASES = ['/login', '/signin', '/sign-in', '/admin/login', '/admin/signin', '/admin/sign-in'] as const;

export function toSignIn(url: string): Response {
  return redirect(`/${new URL(url).search}`, 301);
}
