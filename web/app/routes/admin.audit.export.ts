// GET /admin/audit/export?actor&action&targetKind&targetId&dateStart&dateEnd — every audit row the
// filters select as a CSV download, streamed (admin only: an /admin path outside the page list).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { auditCsv, parseAuditQuery } from '~/modules/audit/audit-list.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/audit/export');

export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  // validated before the stream starts: a bad filter is a 400 with its message, not a cut download
  const parsed = parseAuditQuery(new URL(request.url).searchParams);
  if (!parsed.ok) {
    return new Response(parsed.message, { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-invalid-field': parsed.field } });
  }
  const stamp = new Date().toISOString().slice(0, 10);
  return new Response(auditCsv(sql, parsed.query), {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="audit-${stamp}.csv"`,
      'cache-control': 'no-store',
    },
  });
}
