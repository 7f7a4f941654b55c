// The loader of /admin (routes/_staff.admin._index.tsx): the role from the permission map (1), the
// From / To dates parsed by the lists' own rules (parseListQuery: real days between 1970 and 2100,
// To not before From) before any SQL; bad dates answer 400 with the message under the field.
import { data, type LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { parseListQuery } from '~/components/ui/list-params.ts';
import { dashboardData, type DashboardData } from './dashboard.server.ts';

export interface DashboardLoaderData {
  filters: { dateStart: string; dateEnd: string };
  filterError: { field: string; message: string } | null;
  dashboard: DashboardData | null;
}

export async function dashboardLoader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  const params = new URL(request.url).searchParams;
  const parsed = parseListQuery(params, { dates: true });
  if (!parsed.ok) {
    const raw = (k: string) => (params.get(k) ?? '').slice(0, 30);
    return data<DashboardLoaderData>({
      filters: { dateStart: raw('dateStart'), dateEnd: raw('dateEnd') },
      filterError: { field: parsed.field, message: parsed.message },
      dashboard: null,
    }, { status: 400 });
  }
  const range = { dateStart: parsed.query.dateStart, dateEnd: parsed.query.dateEnd };
  return data<DashboardLoaderData>({ filters: range, filterError: null, dashboard: await dashboardData(sql, range, { exposureMaxAgeMs: 1000 }) });
}
