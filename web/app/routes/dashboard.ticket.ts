// GET /dashboard/ticket: a short-lived signed ticket for the engine's SSE stream (docs/specs.md#realtime-tickets),
// with where the browser reaches the engine and the topics this user may follow. With ?track={id}
// (the Edit Customer page's Tracking tab) the ticket names that customer and the topic is
// track:{id}: only for a staff member who may open the customer (customerVisibleTo), else 404.
// ?topics=prices: prices only; ?topics=user: the user's own topic only (the back-office layout);
// ?topics=heartbeat: the feed health (admins and managers).
// ?topics=exposure: prices and the positions opened and closed (the admin dashboard's open
// exposure): only for the roles of the admin dashboard (EXPOSURE_ROLES), else 403.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { EXPOSURE_ROLES, EXPOSURE_TOPIC, signTicket } from '@broker/engine/contract/ticket';
import { db } from '~/shared/db.server.ts';
import { env, publicEnv } from '~/shared/env.server.ts';
import { customerVisibleTo, notFound, requireUser } from '~/modules/auth/guards.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { isBackOffice } from '~/shared/roles.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/dashboard/ticket');

export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireUser(request, sql);
  const params = new URL(request.url).searchParams;
  const track = params.get('track');
  if (track !== null) {
    const id = /^[1-9][0-9]{0,15}$/.test(track) ? Number(track) : NaN;
    if (!Number.isSafeInteger(id) || !(await customerVisibleTo(sql, s, id))) throw notFound();
    const ticket = signTicket(env().ENGINE_SECRET, { uid: s.user.id, role: s.user.roleId, sid: s.sessionId, trk: id });
    return Response.json({ url: publicEnv().ENGINE_PUBLIC_URL, ticket, topics: `track:${id}` }, { headers: { 'cache-control': 'no-store' } });
  }
  const asked = params.get('topics');
  if (asked !== null && !['prices', 'heartbeat', 'user', EXPOSURE_TOPIC].includes(asked)) {
    return Response.json({ message: 'Unknown topics: use prices, heartbeat, user or exposure' }, { status: 400, headers: { 'cache-control': 'no-store' } });
  }
  const pricesOnly = asked === 'prices';
  // the API status page's feed health (docs/specs.md#settings-and-providers): staff the engine lets follow it
  const heartbeat = asked === 'heartbeat';
  if (heartbeat && !isBackOffice(s.user.roleId)) return new Response(null, { status: 403, headers: { 'cache-control': 'no-store' } });
  // the admin dashboard's open exposure (docs/specs.md#admin-dashboard): its roles only
  const exposure = asked === EXPOSURE_TOPIC;
  if (exposure && !EXPOSURE_ROLES.includes(s.user.roleId)) return new Response(null, { status: 403, headers: { 'cache-control': 'no-store' } });
  // the back-office layout: the user's own notifications only, no prices
  const userOnly = asked === 'user';
  const ticket = signTicket(env().ENGINE_SECRET, { uid: s.user.id, role: s.user.roleId, sid: s.sessionId });
  const topics = heartbeat ? 'heartbeat' : exposure ? `prices,${EXPOSURE_TOPIC}` : pricesOnly ? 'prices' : userOnly ? `user:${s.user.id}` : `prices,user:${s.user.id}`;
  return Response.json(
    { url: publicEnv().ENGINE_PUBLIC_URL, ticket, topics },
    { headers: { 'cache-control': 'no-store' } },
  );
}
