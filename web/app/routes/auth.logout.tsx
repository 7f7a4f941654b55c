// POST /auth/logout: revokes the session (and a login-as session's staff session) and goes to '/'.
import { redirect, type ActionFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { assertSameOrigin } from '~/shared/request.server.ts';
import { currentSession } from '~/modules/auth/guards.server.ts';
import { revokeSession } from '~/modules/auth/session.server.ts';
import { clearSessionCookie } from '~/shared/cookies.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/auth/logout');

export async function action({ request }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const sql = db();
  const s = await currentSession(request, sql);
  if (s) {
    await revokeSession(sql, s.sessionId);
    if (s.parentId !== null) await revokeSession(sql, s.parentId);
    await sql`UPDATE users SET online = EXISTS (SELECT 1 FROM sessions WHERE user_id = ${s.user.id} AND revoked_at IS NULL AND expires_at > now())
              WHERE id = ${s.user.id}`;
  }
  return redirect('/', { headers: { 'set-cookie': clearSessionCookie() } });
}

export async function loader() {
  return redirect('/');
}
