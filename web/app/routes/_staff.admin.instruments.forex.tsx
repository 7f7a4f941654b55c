import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { instrumentsAction, instrumentsLoader } from '~/modules/instruments/instruments-admin.server.ts';
import { InstrumentsPage } from '~/modules/instruments/instruments-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/instruments/forex');

// /admin/instruments/forex — the category's instruments (docs/specs.md#trading-configuration); the five categories share
// modules/instruments (one loader, one action, one page).
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  return instrumentsLoader(sql, 'forex', new URL(request.url).searchParams);
}
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  // numbers typed on the page are read in its language (docs/specs.md#number-input)
  return instrumentsAction(sql, 'forex', await readFormData(request), { actorId: s.user.id, ip: clientIp(request, context) }, await requestLocale(request, sql));
}

export default function Page() {
  return <InstrumentsPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
