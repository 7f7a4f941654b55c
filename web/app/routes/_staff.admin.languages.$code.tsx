import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { translationsAction, translationsLoader } from '~/modules/languages/languages.server.ts';
import { TranslationsPage } from '~/modules/languages/translations-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/languages/:code');

// /admin/languages/:code — one language's translations (admin only; an unknown code is a 404): modules/languages.
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  return translationsLoader(sql, params.code, new URL(request.url).searchParams);
}
export async function action({ request, params, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return translationsAction(sql, params.code, await readFormData(request), { actorId: s.user.id, ip: clientIp(request, context) });
}

export default function Page() {
  return <TranslationsPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
