import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { languagesAction, languagesLoader } from '~/modules/languages/languages.server.ts';
import { LanguagesPage } from '~/modules/languages/languages-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/languages');

// /admin/languages — the languages (admin only, from the permission map): modules/languages.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  return languagesLoader(sql);
}
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return languagesAction(sql, await readFormData(request), { actorId: s.user.id, ip: clientIp(request, context) });
}

export default function Page() {
  return <LanguagesPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
