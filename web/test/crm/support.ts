// Shared set-up of the CRM lead-list tests: staff of every role, a team, and leads marked with a
// unique token (their last name) so each test's lists, searched by it, hold only its own leads.
import type { Sql } from '~/shared/db.server.ts';
import { leadPhoneE164 } from '~/shared/contact.server.ts';
import { createUser, get, post, sessionFor, settle, unique } from '../helpers.ts';
import * as clients from '~/routes/_staff.admin.crm.clients.tsx';
import * as salesAll from '~/routes/_staff.admin.crm.sales.all.tsx';
import * as salesLive from '~/routes/_staff.admin.crm.sales.live.tsx';
import * as salesManual from '~/routes/_staff.admin.crm.sales.manual.tsx';
import * as leadsLive from '~/routes/_staff.admin.leads.live.tsx';
import * as leadsManual from '~/routes/_staff.admin.leads.manual.tsx';
import * as leadsAll from '~/routes/_staff.admin.leads.all.tsx';
import * as archived from '~/routes/_staff.admin.crm.archived.tsx';
import * as retention from '~/routes/_staff.admin.crm.retention.tsx';

export const ROUTES = {
  '/admin/crm/clients': clients, '/admin/crm/sales/all': salesAll, '/admin/crm/sales/live': salesLive,
  '/admin/crm/sales/manual': salesManual, '/admin/leads/live': leadsLive, '/admin/leads/manual': leadsManual,
  '/admin/leads/all': leadsAll, '/admin/crm/archived': archived, '/admin/crm/retention': retention,
} as const;
export type LeadPath = keyof typeof ROUTES;

const routeOf = (path: string) => ROUTES[path.split('?')[0] as LeadPath];

export interface Staff { id: number; cookie: string; email: string }

export function crmSupport(sql: Sql) {
  async function staff(roleId: number): Promise<Staff> {
    const u = await createUser(sql, { roleId });
    return { id: u.id, email: u.email, cookie: (await sessionFor(sql, u.id)).cookie };
  }

  /** A lead; `tok` goes in its last name (the tests search by it). */
  async function lead(tok: string, o: {
    group?: 'sales' | 'retentions' | 'archived'; agent?: number | null; ret?: number | null; manager?: number | null;
    affiliate?: number | null; live?: boolean; status?: string; user?: number | null; createdAt?: string; email?: string; phone?: string;
  } = {}): Promise<number> {
    // phone_e164 as the app's writers set it (no trigger does since 1733200000000)
    const phone = o.phone ?? '+44 7700 900123';
    const [l] = await sql`
      INSERT INTO leads (first_name, last_name, email, phone, phone_e164, country, city, lead_status, "group", agent_id, ret_id, manager_id,
                         affiliate_id, is_live, user_id, created_at)
      VALUES ('Lee', ${tok}, ${o.email ?? `${unique('lead')}@example.com`}, ${phone}, ${leadPhoneE164(phone, 'Spain')}, 'Spain', 'Madrid',
              ${o.status ?? 'New'}, ${o.group ?? 'sales'}, ${o.agent ?? null}, ${o.ret ?? null}, ${o.manager ?? null},
              ${o.affiliate ?? null}, ${o.live ?? false}, ${o.user ?? null}, ${o.createdAt ?? sql`now()`})
      RETURNING id`;
    return Number(l.id);
  }

  async function team(managerId: number, members: number[]) {
    const [t] = await sql`INSERT INTO teams (name, code, manager_id) VALUES ('Team', ${unique('T')}, ${managerId}) RETURNING id`;
    for (const m of members) await sql`INSERT INTO team_members (team_id, user_id) VALUES (${t.id}, ${m})`;
    return Number(t.id);
  }

  async function list(path: string, cookie: string) {
    const r = await settle(routeOf(path).loader({ request: get(path, cookie), params: {}, context: {} })) as { data: any; init: { status?: number } | null } | Response;
    if (r instanceof Response) return { status: r.status, data: null as any };
    return { status: r.init?.status ?? 200, data: r.data };
  }

  /** The ids a screen lists for the caller, searched by the token. */
  async function ids(path: string, cookie: string, tok: string, extra = ''): Promise<number[] | number> {
    const r = await list(`${path}?search=${tok}${extra}&limit=50`, cookie);
    if (r.status !== 200) return r.status;
    return (r.data.rows as { id: number }[]).map((x) => x.id).sort((a, b) => a - b);
  }

  async function act(path: string, body: Record<string, string>, cookie: string) {
    const r = await settle(routeOf(path).action({ request: post(path, body, { cookie }), params: {}, context: { clientIp: '10.9.8.7' } })) as { data: any; init: { status?: number } | null } | Response;
    if (r instanceof Response) return { status: r.status, data: null as any };
    return { status: r.init?.status ?? 200, data: r.data };
  }

  async function groupOf(id: number) {
    const [r] = await sql`SELECT "group", agent_id, ret_id, deleted_at FROM leads WHERE id = ${id}`;
    return r;
  }

  return { staff, lead, team, list, ids, act, groupOf };
}
