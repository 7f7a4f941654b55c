import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { answer } from '~/shared/reply.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { pendingAction, pendingLoader } from '~/modules/trades/route.server.ts';
import { PendingOrdersPage } from '~/modules/trades/pending-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/trades/pending');

// /admin/trades/pending — Pending Orders (roles 1, 2 from the permission map, as a force close): modules/trades.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  return answer(await pendingLoader(sql, new URL(request.url).searchParams));
}
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return pendingAction(s, await readFormData(request), clientIp(request, context));
}

export default function Page() {
  return <PendingOrdersPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
