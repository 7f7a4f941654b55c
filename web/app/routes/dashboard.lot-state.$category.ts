// GET /dashboard/lot-state/:category — whether the category trades by amount or by lot, and the lot selector.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { CATEGORIES, type Category } from '@broker/engine/domain';
import { db } from '~/shared/db.server.ts';
import { requireUser } from '~/modules/auth/guards.server.ts';
import { lotState } from '~/modules/trading/trading.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/dashboard/lot-state/:category');

export async function loader({ request, params }: LoaderFunctionArgs) {
  const sql = db();
  await requireUser(request, sql);
  if (!CATEGORIES.includes(params.category as Category)) return Response.json({ message: 'Something went wrong' }, { status: 404 });
  return Response.json(await lotState(sql, params.category!), { headers: { 'cache-control': 'no-store' } });
}
