import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { answer } from '~/shared/reply.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { tradesAction, tradesLoader } from '~/modules/trades/route.server.ts';
import { TradesPage } from '~/modules/trades/trades-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/trades/all');

// /admin/trades/all — All Trades (roles 1, 2 from the permission map): modules/trades.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return answer(await tradesLoader(sql, s, 'all', new URL(request.url).searchParams));
}
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return tradesAction(sql, s, await readFormData(request), clientIp(request, context), await requestLocale(request, sql));
}

export default function Page() {
  return <TradesPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
