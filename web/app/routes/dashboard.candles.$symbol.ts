// GET /dashboard/candles/:symbol — the engine's daily candles of one instrument, for the chart.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireUser } from '~/modules/auth/guards.server.ts';
import { engine } from '~/shared/engine.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/dashboard/candles/:symbol');

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request, db());
  const symbol = params.symbol ?? '';
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(symbol)) return Response.json({ message: 'Unknown instrument' }, { status: 404 });
  const r = await engine().candles(symbol, '1D', 500);
  if (!r.ok) return Response.json({ message: r.message }, { status: r.status });
  return Response.json({ symbol: r.symbol, candles: r.candles }, { headers: { 'cache-control': 'private, max-age=30' } });
}
