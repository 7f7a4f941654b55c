// Who is online (docs/specs.md#customers-and-staff-lists): live presence, not a stored flag. A user
// is online while one of their sessions is live (not revoked, not expired) and was seen in the
// last ONLINE_WINDOW_MINUTES: a request touches `sessions.last_seen_at` at most once a minute
// (auth/session.server.ts findSession), and the engine touches the sessions of its open
// realtime streams once a minute (engine/src/http/realtime.ts), so a customer sitting on the
// dashboard with the live stream open stays online without clicking anything.
import type { Sql } from '~/shared/db.server.ts';

/** A session seen within this many minutes counts as online (a touch comes at least once a minute). */
export const ONLINE_WINDOW_MINUTES = 3;

/** The SQL condition "user `alias`.id is online", served by sessions_live_user_idx. */
export function onlineExpr(sql: Sql, alias = 'u') {
  return sql`EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = ${sql(alias)}.id AND s.revoked_at IS NULL
                        AND s.last_seen_at > now() - make_interval(mins => ${ONLINE_WINDOW_MINUTES}) AND s.expires_at > now())`;
}
