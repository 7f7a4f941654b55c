// The routes of the CSV lead import: the upload (through the upload service, kind lead_csv), the
// status the page polls, and the report of rejected rows. The role comes from the permission map
// (requireAccess: /admin/crm/ is admins and managers) and the upload kind's policy again; an
// import's progress and report are its importer's and the admins' only (issue 22).
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { discardUploads, receiveUploads } from '~/modules/uploads/uploads.server.ts';
import { importStatus, kickImports, latestImport, queueImport, reportableImport, reportStream } from './import.server.ts';
import { BACK_OFFICE_ROLES } from '~/shared/roles.ts';

const ID = /^[1-9][0-9]{0,15}$/;
const MANAGES = new Set<number>(BACK_OFFICE_ROLES);

export async function importAction({ request, context }: ActionFunctionArgs) {
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

export async function importLoader({ request, context }: LoaderFunctionArgs) {
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

export async function importReport({ request, context, params }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  if (!MANAGES.has(s.user.roleId)) throw new Response('Forbidden', { status: 403 });
  if (!ID.test(params.id ?? '')) throw new Response('Not Found', { status: 404 });
  // the rejected rows carry the leads' contacts: the importer and admins only, 404 for anyone else
  const job = await reportableImport(sql, Number(params.id), { id: s.user.id, roleId: s.user.roleId });
  if (!job) throw new Response('Not Found', { status: 404 });
  return new Response(reportStream(sql, job.id, job.header), {
    headers: {
      'content-type': 'text/csv; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff',
      'content-disposition': `attachment; filename="lead-import-${job.id}-report.csv"`,
    },
  });
}
