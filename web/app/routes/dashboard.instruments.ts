// GET /dashboard/instruments: every instrument and its first price, for the dashboard's other tabs
// and its search (the page itself comes with its first tab's instruments and the favorites';
// modules/trading/trading.server.ts). Signed-in users only; nothing in it is the user's.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireUser } from '~/modules/auth/guards.server.ts';
import { allInstruments } from '~/modules/trading/trading.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/dashboard/instruments');

export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  await requireUser(request, sql);
  return Response.json(await allInstruments(sql), { headers: { 'cache-control': 'no-store' } });
}
