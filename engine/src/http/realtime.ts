// GET /v1/stream (SSE, ticket in the query as EventSource cannot set headers) and
// POST /v1/events (web publishes notifications and tracking). A gateway process
// (realtime/gateway.ts) serves the stream alone; a core serves both.
import { Elysia, t } from 'elysia';
import type { Core } from '../core.ts';
import type { Hub } from '../realtime/hub.ts';
import type { Sql } from '../db.ts';
import { verifyTicket, maySubscribe } from '../contract/ticket.ts';
import { isPublishedEvent } from '../contract/events.ts';
import { HttpError } from './errors.ts';
import { requireSecret } from './internal.ts';
import { ROLE } from '../contract/roles.ts';

/**
 * How often the sessions of open streams are marked as seen (web's online dot:
 * web/app/modules/users/online.server.ts) and checked still live (PostgreSQL's
 * session_live, the rule web's findSession reads): a stream whose session ended (signed out,
 * revoked, its user deactivated, a login-as whose staff member lost the right to it) is closed.
 * PRESENCE_TOUCH_MS overrides it (tests).
 */
export const presenceTouchMs = () => Number(process.env.PRESENCE_TOUCH_MS) || 60_000;

/** GET /v1/stream: a core's (ENGINE_ROLE all or core) and a gateway's (ENGINE_ROLE=gateway). */
export function streamRoutes(hub: Hub, sql: Sql, secret: string) {
  // session id → the streams open on this process (each one's closer)
  const open = new Map<number, Set<AbortController>>();
  const touch = setInterval(() => {
    if (!open.size) return;
    const ids = [...open.keys()];
    sql`UPDATE sessions SET last_seen_at = now()
         WHERE id IN ${sql(ids)} AND revoked_at IS NULL AND last_seen_at < now() - interval '30 seconds'`
      .catch((e) => console.error('[realtime] presence touch failed', e));
    sql<{ id: string }[]>`SELECT id FROM unnest(${ids.map(String)}::bigint[]) AS id WHERE NOT session_live(id, NULL)`
      .then((ended) => {
        for (const { id } of ended) for (const stream of open.get(Number(id)) ?? []) stream.abort();
      })
      .catch((e) => console.error('[realtime] session check failed', e));
  }, presenceTouchMs());
  (touch as { unref?: () => void }).unref?.();
  const opened = (sid: number) => {
    const stream = new AbortController();
    let set = open.get(sid);
    if (!set) open.set(sid, (set = new Set()));
    set.add(stream);
    const closed = () => {
      const streams = open.get(sid);
      if (!streams?.delete(stream)) return;
      if (streams.size === 0) open.delete(sid);
    };
    return { signal: stream.signal, closed };
  };
  return new Elysia()
    .get('/stream', async ({ query, headers }) => {
      const claims = verifyTicket(secret, query.ticket);
      if (!claims) throw new HttpError(401, 'Invalid or expired ticket');
      // the session named by the ticket, still live by the one rule (session_live, as web reads it)
      const [live] = await sql`
        SELECT 1 FROM sessions s WHERE s.id = ${claims.sid} AND s.user_id = ${claims.uid} AND session_live(s.id, NULL)`;
      if (!live) throw new HttpError(401, 'Session is not live');
      // a tracking ticket names a live customer (role 3), never a staff member
      if (claims.trk !== undefined) {
        const [customer] = await sql`SELECT 1 FROM users WHERE id = ${claims.trk} AND role_id = ${ROLE.customer} AND deleted_at IS NULL`;
        if (!customer) throw new HttpError(403, `Not allowed to subscribe to track:${claims.trk}`);
      }
      const topics = (query.topics ?? `prices,user:${claims.uid}`).split(',').map((s) => s.trim()).filter(Boolean);
      const denied = topics.find((tp) => !maySubscribe(claims, tp));
      if (denied) throw new HttpError(403, `Not allowed to subscribe to ${denied}`);
      const lastEventId = headers['last-event-id'] ?? query.lastEventId;
      const stream = opened(claims.sid);
      return new Response(hub.open(claims.uid, topics, lastEventId, stream.closed, stream.signal), {
        headers: {
          'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform',
          connection: 'keep-alive', 'x-accel-buffering': 'no',
          // the browser opens the stream from the web app's origin; the ticket (not a cookie)
          // authenticates it, so any origin may read it
          'access-control-allow-origin': '*',
        },
      });
    }, {
      query: t.Object({
        ticket: t.String({ maxLength: 1000 }),
        topics: t.Optional(t.String({ maxLength: 500 })),
        lastEventId: t.Optional(t.String({ pattern: '^\\d+-\\d+$' })),
      }),
    });
}

/** POST /v1/events: a core's only (it publishes to the bus; every hub, a gateway's too, fans it out). */
export function eventRoutes(core: Core, secret: string) {
  return new Elysia()
    .post('/events', async ({ body, headers }) => {
      requireSecret(headers, secret);
      if (!/^(user|track):\d+$|^heartbeat$/.test(body.topic)) throw new HttpError(400, 'Unknown topic');
      // only the contract's events reach a browser (contract/events.ts); their payloads are the publisher's
      if (!isPublishedEvent(body.event)) throw new HttpError(400, 'Unknown event');
      const id = await core.publish(body.topic, body.event, (body.data ?? {}) as never);
      return { ok: true, id };
    }, {
      body: t.Object({
        topic: t.String({ maxLength: 100 }),
        event: t.String({ minLength: 1, maxLength: 60 }),
        data: t.Optional(t.Unknown()),
      }),
    });
}

/** Both, as a core serves them. */
export function realtimeRoutes(hub: Hub, core: Core, sql: Sql, secret: string) {
  return new Elysia().use(streamRoutes(hub, sql, secret)).use(eventRoutes(core, secret));
}
