// GET /dashboard/rates?quote=XXX — how many quote-currency units one unit of the active
// wallet's currency buys (the order dialog's conversion rate).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireUser } from '~/modules/auth/guards.server.ts';
import { engine } from '~/shared/engine.server.ts';
import { activeWallet } from '~/modules/accounts/accounts.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/dashboard/rates');

export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireUser(request, sql);
  const quote = new URL(request.url).searchParams.get('quote') ?? '';
  if (!/^[A-Za-z]{3,5}$/.test(quote)) return Response.json({ message: 'quote must be a currency code such as USD' }, { status: 400 });
  const balance = await activeWallet(sql, s.user.id);
  if (!balance) return Response.json({ message: 'Balance not found' }, { status: 404 });
  const r = await engine().rate(balance.currency, quote);
  if (!r.ok) return Response.json({ message: r.message }, { status: r.status });
  return Response.json({ rate: r.rate, from: r.from, to: r.to }, { headers: { 'cache-control': 'no-store' } });
}
