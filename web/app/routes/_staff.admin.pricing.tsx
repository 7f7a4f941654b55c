import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { plansAction, plansLoader } from '~/modules/plans/plans-admin.server.ts';
import { PlansPage } from '~/modules/plans/plans-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/pricing');

// /admin/pricing — the pricing plans (docs/specs.md#trading-configuration), admin only as the navigation table says.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return plansLoader(sql, new URL(request.url).searchParams, s.user.roleId);
}
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  // numbers typed on the page are read in its language (docs/specs.md#number-input)
  return plansAction(sql, await readFormData(request), { actorId: s.user.id, ip: clientIp(request, context) }, await requestLocale(request, sql), s.user.roleId);
}

export default function Page() {
  return <PlansPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
