// POST /admin/crm/lead-import: upload a lead CSV and queue its import; GET ?id=N: an import's
// progress (the page polls it), without id: the caller's latest import. Admins and managers
// (permissions: the /admin/crm/ prefix), and the upload kind's policy again; an import's progress is
// its importer's and the admins' only (issue 22). The import itself is modules/crm/import.server.ts.
import { BACK_OFFICE_ROLES } from '~/shared/roles.ts';
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { discardUploads, receiveUploads } from '~/modules/uploads/uploads.server.ts';
import { importStatus, kickImports, latestImport, queueImport } from '~/modules/crm/import.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm/lead-import');

const ID = /^[1-9][0-9]{0,15}$/;
const MANAGES = new Set<number>(BACK_OFFICE_ROLES);

export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  if (!MANAGES.has(s.user.roleId)) return data({ ok: false as const, message: 'Forbidden', params: {} as Record<string, string> }, { status: 403 });
  const got = await receiveUploads(sql, request, { id: s.user.id, roleId: s.user.roleId }, { file: 'lead_csv' });
  if (!got.ok) return data({ ok: false as const, message: got.error.message, params: got.error.params ?? {} }, { status: got.error.status });
  const file = got.files.file;
  if (!file) return data({ ok: false as const, message: 'Choose a CSV file.', params: {} }, { status: 422 });
  const q = await queueImport(sql, { id: s.user.id }, { id: file.id }, { ip: clientIp(request, context) });
  if (!q.ok) {
    await discardUploads(sql, s.user.id, [file.id]);
    return data({ ok: false as const, message: q.message, params: q.params ?? {} }, { status: 422 });
  }
  kickImports(sql, q.id);
  return data({ ok: true as const, id: q.id, status: await importStatus(sql, q.id) });
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  if (!MANAGES.has(s.user.roleId)) throw new Response('Forbidden', { status: 403 });
  const id = new URL(request.url).searchParams.get('id');
  if (id !== null && !ID.test(id)) throw new Response('Not Found', { status: 404 });
  // another manager's import is not there for this one: the importer and admins only
  const status = id === null ? await latestImport(sql, s.user.id) : await importStatus(sql, Number(id), { id: s.user.id, roleId: s.user.roleId });
  if (id !== null && !status) throw new Response('Not Found', { status: 404 });
  return data({ status }, { headers: { 'cache-control': 'no-store' } });
}
