// GET /admin/crm/lead-import/:id/report: every rejected row of an import with its reason, as CSV (streamed).
import { BACK_OFFICE_ROLES } from '~/shared/roles.ts';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { reportableImport, reportStream } from '~/modules/crm/import.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { detectLocale, listLanguages, loadResources, serverI18n } from '~/modules/i18n/i18n.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm/lead-import/:id/report');

const ID = /^[1-9][0-9]{0,15}$/;
const MANAGES = new Set<number>(BACK_OFFICE_ROLES);

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  if (!MANAGES.has(s.user.roleId)) throw new Response('Forbidden', { status: 403 });
  if (!ID.test(params.id ?? '')) throw new Response('Not Found', { status: 404 });
  // the rejected rows carry the leads' contacts: the importer and admins only, 404 for anyone else
  const job = await reportableImport(sql, Number(params.id), { id: s.user.id, roleId: s.user.roleId });
  if (!job) throw new Response('Not Found', { status: 404 });
  // the reasons in the reader's language (the page's: cookie, else Accept-Language)
  const locale = await detectLocale(request, await listLanguages(sql));
  const i18n = await serverI18n(locale, await loadResources(sql, locale));
  return new Response(reportStream(sql, job.id, job.header, (key, values) => i18n.t(key, values)), {
    headers: {
      'content-type': 'text/csv; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff',
      'content-disposition': `attachment; filename="lead-import-${job.id}-report.csv"`,
    },
  });
}
