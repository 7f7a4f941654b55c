// POST /lang: the language switcher stores its choice in the `lang` cookie (and, in the
// browser, localStorage) and goes back to the page it came from.
import { redirect, type ActionFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { assertSameOrigin } from '~/shared/request.server.ts';
import { langCookie, listLanguages } from '~/modules/i18n/i18n.server.ts';
import { safeRedirect } from '~/shared/safe-redirect.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/lang');

export async function action({ request }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const form = await readFormData(request);
  const lang = String(form.get('lang') ?? '');
  const to = safeRedirect(form.get('redirectTo'), '/');
  const languages = await listLanguages(db());
  if (!languages.some((l) => l.code === lang)) return redirect(to);
  return redirect(to, { headers: { 'set-cookie': langCookie(lang) } });
}

export async function loader() {
  return redirect('/');
}
