// The JSON reads of the spec's calls (docs/specs.md#crm-configuration):
// GET /admin/crm-config/sales-statuses/api and GET /admin/crm-config/teams/api, each
// `?page&limit&search&sort&dir`, answering `{ data, meta: { total, page, limit } }`. The pages
// themselves read the same lists in their loaders; these serve other callers (the lead lists'
// status filter asks page=1&limit=999). The roles are the permission map's (prefix rules: sales
// statuses 1 and 2, teams admin only).
import type { Sql } from '~/shared/sql.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { listSalesStatuses, SALES_STATUS_SORTS, STATUS_CHOICES_LIMIT } from './sales-statuses.server.ts';
import { listTeams, TEAM_SORTS } from './teams.server.ts';

/** page and limit as the API reads them: limit 1..999 (the spec's status list asks 999), default 15. */
function paging(params: URLSearchParams) {
  const int = (v: string | null) => (v !== null && /^\d{1,6}$/.test(v) ? Number(v) : NaN);
  const limit = Math.min(STATUS_CHOICES_LIMIT, Math.max(1, int(params.get('limit')) || 15));
  const page = Math.min(100_000, Math.max(1, int(params.get('page')) || 1));
  return { page, limit, offset: (page - 1) * limit };
}

export async function salesStatusesApi(sql: Sql, s: CurrentSession, params: URLSearchParams) {
  const q = { ...listQuery(params, SALES_STATUS_SORTS), ...paging(params) };
  const { rows, total } = await listSalesStatuses(sql, q);
  return Response.json({ data: rows, meta: { total, page: q.page, limit: q.limit } }, { headers: { 'cache-control': 'no-store' } });
}

export async function teamsApi(sql: Sql, s: CurrentSession, params: URLSearchParams) {
  const q = { ...listQuery(params, TEAM_SORTS), ...paging(params) };
  const { rows, total } = await listTeams(sql, q);
  return Response.json({ data: rows, meta: { total, page: q.page, limit: q.limit } }, { headers: { 'cache-control': 'no-store' } });
}
