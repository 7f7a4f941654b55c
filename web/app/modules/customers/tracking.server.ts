// Tracking (docs/specs.md#customer-records 'Tracking', docs/specs.md#realtime-tickets 'track:{userId}'): the pages a
// customer opens in the client area, recorded by the client layout's loader (one row per URL
// change: a revalidation of the same URL adds none), and sent live on the engine's staff-only
// topic track:{userId}, which the Edit Customer page's Tracking tab follows. Not recorded for
// staff, nor while a staff member is signed in as the customer.
import type { Sql } from '~/shared/db.server.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { engine } from '~/shared/engine.server.ts';
import { isCustomer } from '~/shared/roles.ts';

import { TRACK_EVENT } from '@broker/engine/contract/events';

export { TRACK_EVENT };
export const trackTopic = (userId: number) => `track:${userId}`;
export const URL_MAX = 2000;

export interface TrackItem { id: number; url: string; time: string }

/** Search parameters of Remix's own data requests, not part of the page's URL. */
const INTERNAL_PARAMS = ['_routes', '_data', 'index'];

/** A request as tracking reads it: its method and its URL (the route hands these over, not the request). */
export interface PageRequest { method: string; url: string }

/** The page a client-area request's URL is for: its path (without single fetch's '.data') and its query. */
export function visitedUrl(requestUrl: string): string | null {
  const u = new URL(requestUrl);
  let path = u.pathname.replace(/\.data$/, '');
  if (path === '/_root') path = '/';
  for (const p of INTERNAL_PARAMS) u.searchParams.delete(p);
  const q = u.searchParams.toString();
  const url = q ? `${path}?${q}` : path;
  return url.length > URL_MAX || !url.startsWith('/') ? null : url;
}

/**
 * Records the customer's visit of the request's page unless it is the URL of their last row,
 * then publishes it on track:{userId}. Only customers' own sessions, GET requests.
 */
export async function recordVisit(sql: Sql, s: CurrentSession, request: PageRequest, publish = publishVisit): Promise<TrackItem | null> {
  if (!isCustomer(s.user.roleId) || s.impersonatorId !== null || request.method.toUpperCase() !== 'GET') return null;
  const url = visitedUrl(request.url);
  if (!url) return null;
  const [row] = await sql`
    INSERT INTO tracking_events (user_id, url)
    SELECT ${s.user.id}, ${url}
     WHERE NOT EXISTS (SELECT 1 FROM (SELECT t.url FROM tracking_events t WHERE t.user_id = ${s.user.id}
                                       ORDER BY t.id DESC LIMIT 1) last WHERE last.url = ${url})
    RETURNING id, url, created_at`;
  if (!row) return null;
  const item: TrackItem = { id: Number(row.id), url: row.url, time: (row.created_at as Date).toISOString() };
  await publish(s.user.id, item);
  return item;
}

/** The live event, best effort: the row is recorded whatever happens here. */
export async function publishVisit(userId: number, item: TrackItem): Promise<void> {
  const r = await engine().publish({ topic: trackTopic(userId), event: TRACK_EVENT, data: item });
  if (!r.ok) console.warn(`[tracking] live event for user ${userId} not sent: ${r.message}`);
}

/**
 * The client layout's call: never delays nor fails the page (the insert and the event run
 * after the loader answered; an error is logged).
 */
export function trackVisit(sql: Sql, s: CurrentSession, request: PageRequest): void {
  if (!isCustomer(s.user.roleId) || s.impersonatorId !== null) return;
  recordVisit(sql, s, request).catch((e) => console.error('[tracking]', (e as Error).message));
}

/** The Tracking tab: the customer's visits, newest first, paged (tracking_events_user_idx). */
export async function listTracking(sql: Sql, userId: number, q: { limit: number; offset: number }) {
  const [rows, [count]] = await Promise.all([
    sql`SELECT id, url, created_at FROM tracking_events WHERE user_id = ${userId} ORDER BY id DESC LIMIT ${q.limit} OFFSET ${q.offset}`,
    sql`SELECT count(*)::int AS n FROM tracking_events WHERE user_id = ${userId}`,
  ]);
  return {
    total: count.n as number,
    rows: rows.map((r): TrackItem => ({ id: Number(r.id), url: String(r.url), time: (r.created_at as Date).toISOString() })),
  };
}
