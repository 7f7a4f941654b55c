import { data, type LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { AUDIT_FILTER_KEYS, auditChoices, listAudit, parseAuditQuery, type AuditFilters } from '~/modules/audit/audit-list.server.ts';
import { AuditPage, type AuditLoaderData } from '~/modules/audit/audit-page.tsx';
import { DEFAULT_PAGE_SIZE } from '~/components/ui/list-params.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/audit');

// /admin/audit — the audit trail (admin only, from the permission map): modules/audit.
// A bad filter is a 400 with its message on the page and no rows.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  const params = new URL(request.url).searchParams;
  const filters = Object.fromEntries(AUDIT_FILTER_KEYS.map((k) => [k, (params.get(k) ?? '').slice(0, 300)])) as AuditFilters;
  const parsed = parseAuditQuery(params);
  const choices = await auditChoices(sql);
  if (!parsed.ok) {
    const body: AuditLoaderData = { rows: [], newer: false, older: false, count: 0, countCapped: false, filters, limit: DEFAULT_PAGE_SIZE, choices, filterError: { field: parsed.field, message: parsed.message } };
    return data(body, { status: 400 });
  }
  const page = await listAudit(sql, parsed.query);
  const body: AuditLoaderData = { ...page, filters, limit: parsed.query.limit, choices, filterError: null };
  return data(body);
}

export default function Page() {
  return <AuditPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
