// The loader of /admin (routes/_staff.admin._index.tsx): the role from the permission map (1), the
// From / To dates parsed by the lists' own rules (parseListQuery: real days between 1970 and 2100,
// To not before From) before any SQL; bad dates answer 400 with the message under the field.
import type { Sql } from '~/shared/sql.ts';
import { parseListQuery } from '~/components/ui/list-params.ts';
import { dashboardData, type DashboardData } from './dashboard.server.ts';

export interface DashboardLoaderData {
  filters: { dateStart: string; dateEnd: string };
  filterError: { field: string; message: string } | null;
  dashboard: DashboardData | null;
}

export async function dashboardLoader(sql: Sql, params: URLSearchParams): Promise<{ status: number; body: DashboardLoaderData }> {
  const parsed = parseListQuery(params, { dates: true });
  if (!parsed.ok) {
    const raw = (k: string) => (params.get(k) ?? '').slice(0, 30);
    return { status: 400, body: {
      filters: { dateStart: raw('dateStart'), dateEnd: raw('dateEnd') },
      filterError: { field: parsed.field, message: parsed.message },
      dashboard: null,
    } };
  }
  const range = { dateStart: parsed.query.dateStart, dateEnd: parsed.query.dateEnd };
  return { status: 200, body: { filters: range, filterError: null, dashboard: await dashboardData(sql, range, { exposureMaxAgeMs: 1000 }) } };
}
