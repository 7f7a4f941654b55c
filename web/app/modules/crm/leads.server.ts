// The CRM lead lists and their actions (docs/specs.md#crm-lead-lists). One query builder
// (`leadCondition`) makes every screen's WHERE clause: the caller's scope (admins all, managers the leads
// of their teams, sales agents the leads assigned to them, retention agents those they retain), the
// screen's group and source, and the URL's filters. The page, its count and every bulk action read
// that same clause, so a bulk action on 'all' touches exactly the rows the list shows, in one statement.
import { isIP } from 'node:net';
import type postgres from 'postgres';
import type { Db, Sql } from '~/shared/db.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { pgCode, refuse, refuseFields, type Outcome, type Refusal } from '~/shared/result.server.ts';
import { notifyStaff, publishNotices, type Notice } from '~/shared/notify.server.ts';
import { getSetting } from '~/shared/settings.server.ts';
import { hashPassword } from '~/modules/auth/password.server.ts';
import { loadAuthConfig, openCustomerWallets, sendAccountOpenedMail } from '~/modules/auth/auth.server.ts';
import { maskEmail, maskPhone, MASKED_ROLES } from '~/shared/mask.ts';
import { trackProgress, type ProgressTracker } from '~/shared/statement-progress.server.ts';
import { leadPhoneE164 } from '~/shared/contact.server.ts';
import { checkLeadFields } from './lead-input.server.ts';
import {
  EXACT_COUNT_LIMIT, MASKED_SORTS, MAX_DEPTH, SORT_COLUMNS, moveAllowed, sourceGroups,
  type LeadGroup, type Screen, type SortKey,
} from './screens.ts';
import { isAdmin, isAffiliate, isAgent, isBackOffice, isManager, isRetentionAgent, isSalesAgent, ROLE } from '~/shared/roles.ts';

type Fragment = postgres.PendingQuery<postgres.Row[]>;

export interface Caller { id: number; roleId: number }
export interface LeadFilters { status: string; agent: string; dateStart: string; dateEnd: string; search: string }
export interface LeadListQuery extends LeadFilters { sort: SortKey; dir: 'asc' | 'desc'; limit: number; offset: number }

export interface LeadRow {
  id: number; firstName: string; lastName: string; email: string; phone: string; note: string | null;
  country: string; city: string; status: string; statusColor: string | null; group: LeadGroup;
  managerId: number | null; managerName: string | null; agentId: number | null; agentName: string | null;
  retId: number | null; retName: string | null; registeredAt: string; depositedAt: string | null; lastAccess: string | null;
  ftdAt: string | null; funnelLink: string | null; reference: string | null; leadSourceId: string | null;
  affiliateId: number | null; affiliateName: string | null; linkedId: number | null; linkedName: string | null;
  /** the linked customer's email verified (null: no customer): a converted lead's customer signs in once verified */
  linkedVerified: boolean | null;
}

/** Roles that see the lead lists at all; affiliates (4) and customers (3) see nothing here. */
const STAFF = [ROLE.admin, ROLE.manager, ROLE.sales, ROLE.retention] as number[];

/** A client address the audit's inet column takes, else none. */
export function auditIp(ip: string | null | undefined): string | null {
  return ip && ip.length <= 64 && isIP(ip) ? ip : null;
}

/** The team members of the teams a manager runs (their agents and retention agents). */
export async function teamMembers(sql: Db, managerId: number): Promise<number[]> {
  const rows = await sql`SELECT DISTINCT m.user_id FROM team_members m JOIN teams t ON t.id = m.team_id WHERE t.manager_id = ${managerId}`;
  return rows.map((r) => Number(r.user_id));
}

export type Scope = { kind: 'all' } | { kind: 'manager'; id: number; members: number[] } | { kind: 'agent'; id: number } | { kind: 'retention'; id: number }
  | { kind: 'affiliate'; id: number };

/**
 * Which leads the caller may see or touch, or null: none. Admins all; managers the leads they
 * manage, those assigned to a member of a team they run (agent or retention agent) and the pool; sales agents
 * the leads whose agent they are; retention agents those whose retention agent they are.
 */
export async function resolveScope(sql: Db, caller: Caller): Promise<Scope | null> {
  switch (caller.roleId) {
    case ROLE.admin: return { kind: 'all' };
    case ROLE.manager: return { kind: 'manager', id: caller.id, members: await teamMembers(sql, caller.id) };
    case ROLE.sales: return { kind: 'agent', id: caller.id };
    case ROLE.retention: return { kind: 'retention', id: caller.id };
    // affiliates: the leads credited to them (the affiliate portal; the CRM screens are closed to them)
    case ROLE.affiliate: return { kind: 'affiliate', id: caller.id };
    default: return null;
  }
}

/**
 * The pool (docs/specs.md#crm-lead-lists): leads that came in through the leads API and that no manager, agent or
 * retention agent holds. Every manager sees them and assigns them; assigning one takes it out. The
 * condition is the predicate of the partial index leads_pool_idx, word for word (deleted_at included, so
 * PostgreSQL proves the index usable for this arm of the scope's OR).
 */
function pool(sql: Db): Fragment {
  return sql`(l.is_live AND l.manager_id IS NULL AND l.agent_id IS NULL AND l.ret_id IS NULL AND l.deleted_at IS NULL)`;
}

/** The scope as SQL over `l` (built synchronously: a fragment returned from an async function would run). */
export function scopeCondition(sql: Db, scope: Scope): Fragment {
  switch (scope.kind) {
    case 'all': return sql`TRUE`;
    // and the pool: the API's leads nobody holds yet (POOL, served by leads_pool_idx), for any manager to assign
    case 'manager': return scope.members.length
      ? sql`(l.manager_id = ${scope.id} OR l.agent_id IN ${sql(scope.members)} OR l.ret_id IN ${sql(scope.members)} OR ${pool(sql)})`
      : sql`(l.manager_id = ${scope.id} OR ${pool(sql)})`;
    case 'agent': return sql`l.agent_id = ${scope.id}`;
    case 'retention': return sql`l.ret_id = ${scope.id}`;
    case 'affiliate': return sql`l.affiliate_id = ${scope.id}`;
  }
}

/** The screen's leads: its group (or the clients outside the archive) and how they came in. */
function screenCondition(sql: Db, screen: Screen): Fragment {
  const set = screen.set === 'clients'
    ? sql`l.user_id IS NOT NULL AND l."group" <> 'archived'`
    : screen.set === 'any' ? sql`TRUE` : sql`l."group" = ${screen.set}::lead_group`;
  const fresh = screen.newOnly ? sql`AND l.user_id IS NULL` : sql``;
  const source = screen.source === 'live' ? sql`AND l.is_live`
    : screen.source === 'manual' ? sql`AND NOT l.is_live`
      : screen.source === 'affiliate' ? sql`AND l.affiliate_id IS NOT NULL` : sql``;
  return sql`${set} ${fresh} ${source}`;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The search: a trigram match of first name, last name, email and phone (leads_search_trgm_idx) from
 * 3 characters, a prefix of the names below (their prefix indexes); a number also finds the lead of that id.
 * A caller who sees masked contacts searches the names only: a search must not reveal what the list hides.
 */
function searchCondition(sql: Db, raw: string, masked: boolean): Fragment {
  const term = raw.trim().toLowerCase();
  if (!term) return sql``;
  const byId = /^[1-9][0-9]{0,15}$/.test(term) && Number.isSafeInteger(Number(term)) ? sql`OR l.id = ${Number(term)}` : sql``;
  const prefix = `${likeEscape(term)}%`;
  if (masked) return sql`AND (lower(l.first_name) LIKE ${prefix} OR lower(l.last_name) LIKE ${prefix} ${byId})`;
  if ([...term].length < 3) return sql`AND (lower(l.first_name) LIKE ${prefix} OR lower(l.last_name) LIKE ${prefix} ${byId})`;
  const contains = `%${likeEscape(term)}%`;
  return sql`AND (lower(l.first_name || ' ' || l.last_name || ' ' || l.email || ' ' || l.phone) LIKE ${contains} ${byId})`;
}

export interface ListContext { caller: Caller; screen: Screen; masked: boolean }

/** The one WHERE clause of a screen's list, its count and its bulk actions, for a resolved scope. */
export function leadCondition(sql: Db, ctx: ListContext, f: LeadFilters, resolved: Scope): Fragment {
  const scope = scopeCondition(sql, resolved);
  const manages = isBackOffice(ctx.caller.roleId);
  // the agent filter is the admins' and managers' own: an agent's list is theirs already
  const agent = manages && f.agent
    ? (ctx.screen.agentField === 'retId' ? sql`AND l.ret_id = ${Number(f.agent)}` : sql`AND l.agent_id = ${Number(f.agent)}`)
    : sql``;
  return sql`l.deleted_at IS NULL AND ${scope} AND ${screenCondition(sql, ctx.screen)}
    ${f.status ? sql`AND l.lead_status = ${f.status}` : sql``}
    ${agent}
    ${f.dateStart ? sql`AND l.created_at >= (${f.dateStart}::date)::timestamp AT TIME ZONE 'UTC'` : sql``}
    ${f.dateEnd ? sql`AND l.created_at < (${f.dateEnd}::date + 1)::timestamp AT TIME ZONE 'UTC'` : sql``}
    ${searchCondition(sql, f.search, ctx.masked)}`;
}

/** Whether this caller gets masked contacts: an agent while 'Show Email & Phone in Agent Dashboard' is off. */
export async function masksFor(sql: Sql, caller: Caller): Promise<boolean> {
  if (!MASKED_ROLES.includes(caller.roleId)) return false;
  return (await getSetting(sql, 'showUserInfoAgent')).enabled !== 'on';
}

/** Whether this caller, masked, may reveal a contact: the broker's switch for their role (sales 5, retention 6). */
export async function revealAllowed(sql: Sql, caller: Caller): Promise<boolean> {
  const s = await getSetting(sql, 'showUserInfoAgent');
  if (s.enabled === 'on') return false; // nothing is masked
  return isSalesAgent(caller.roleId) ? s.revealSales === 'on' : isRetentionAgent(caller.roleId) ? s.revealRetention === 'on' : false;
}

/**
 * The number of leads a list holds (the trades lists' approach, made robust to the planner's row
 * estimate): PostgreSQL's estimate first; a list it takes for small is counted exactly (up to
 * 3 × EXACT_COUNT_LIMIT, planned for all its rows: the filter's best index, never a scan hoping to
 * stop early); a larger one is counted up to EXACT_COUNT_LIMIT, and above that the estimate stands
 * (the page says so). So a list of a million costs what one of thousands does.
 */
export async function countLeads(sql: Db, cond: Fragment, limit = EXACT_COUNT_LIMIT): Promise<{ total: number; estimated: boolean }> {
  const [plan] = await sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM leads l WHERE ${cond}`;
  const planned = Number((plan['QUERY PLAN'] as { Plan: { 'Plan Rows': number } }[])[0]?.Plan?.['Plan Rows']);
  const estimate = Number.isFinite(planned) ? Math.round(planned) : Infinity;
  const cap = estimate <= 3 * limit ? 3 * limit : limit;
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM leads l WHERE ${cond} LIMIT ${cap + 1}) x`;
  if (n <= cap) return { total: n, estimated: false };
  return { total: Math.max(n, Number.isFinite(estimate) ? estimate : 0), estimated: true };
}

/** Sort columns that may be empty: their empty rows come last in either direction. */
const NULLABLE: ReadonlySet<SortKey> = new Set<SortKey>([
  'notes', 'manager', 'agent', 'retAgent', 'depositedAt', 'lastAccess', 'funnelLink', 'reference', 'leadSourceId', 'ftdAt', 'affiliator',
]);
/** Up to this many matching leads, a page is picked by sorting the matches found through the filter's best index. */
export const SMALL_LIST = 20_000;

/**
 * The ids of one page. A small list (its exact count known, at most SMALL_LIST) is read through the
 * filter's best index and sorted (OFFSET 0 fences the planner from walking a sort index in hope of
 * early matches that lie deep); a large one walks the sort's (column, id) index in order, so the
 * page costs its depth. A column that may be empty is walked over its values first
 * (IS NOT NULL is an index condition), then over the empty rows by id.
 */
export async function pickPage(sql: Db, cond: Fragment, q: Pick<LeadListQuery, 'sort' | 'dir' | 'limit'>, offset: number, small: boolean): Promise<number[]> {
  const rows = await sql`${pageQuery(sql, cond, q, offset, small)}`;
  const ids = rows.map((r) => Number(r.id));
  if (small || !NULLABLE.has(q.sort) || ids.length === q.limit) return ids;
  // the page reaches past the rows with a value: how many there are before it, then the empty ones
  const valued = ids.length > 0 ? offset + ids.length
    : Number((await sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM leads l WHERE ${cond} AND l.${sql(SORT_COLUMNS[q.sort])} IS NOT NULL LIMIT ${offset}) x`)[0].n);
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  const rest = await sql`
    SELECT l.id FROM leads l WHERE ${cond} AND l.${sql(SORT_COLUMNS[q.sort])} IS NULL
     ORDER BY l.id ${dir} LIMIT ${q.limit - ids.length} OFFSET ${Math.max(0, offset - valued)}`;
  return [...ids, ...rest.map((r) => Number(r.id))];
}

/** The columns that hold a person (a user's id): they sort by the person's name, then the person, then the lead. */
const PERSON_SORTS: ReadonlySet<SortKey> = new Set<SortKey>(['manager', 'agent', 'retAgent', 'affiliator']);

/** The page query pickPage runs first (what bench:crm explains). */
export function pageQuery(sql: Db, cond: Fragment, q: Pick<LeadListQuery, 'sort' | 'dir' | 'limit'>, offset: number, small: boolean): Fragment {
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  const col = sql(SORT_COLUMNS[q.sort] ?? 'id');
  if (PERSON_SORTS.has(q.sort)) return personPageQuery(sql, cond, SORT_COLUMNS[q.sort], dir, q.limit, offset, small);
  if (small) {
    return q.sort === 'id'
      ? sql`SELECT x.id FROM (SELECT l.id FROM leads l WHERE ${cond} OFFSET 0) x ORDER BY x.id ${dir} LIMIT ${q.limit} OFFSET ${offset}`
      : sql`SELECT x.id FROM (SELECT l.id, l.${col} AS k FROM leads l WHERE ${cond} OFFSET 0) x
             ORDER BY x.k ${dir} NULLS LAST, x.id ${dir} LIMIT ${q.limit} OFFSET ${offset}`;
  }
  if (q.sort === 'id') return sql`SELECT l.id FROM leads l WHERE ${cond} ORDER BY l.id ${dir} LIMIT ${q.limit} OFFSET ${offset}`;
  const valued = NULLABLE.has(q.sort) ? sql`AND l.${col} IS NOT NULL` : sql``;
  return sql`SELECT l.id FROM leads l WHERE ${cond} ${valued} ORDER BY l.${col} ${dir}, l.id ${dir} LIMIT ${q.limit} OFFSET ${offset}`;
}

/**
 * A page sorted by a person column (name, person id, lead id). A small list joins the names and sorts.
 * A large one cannot walk an index of names on leads, but the people in a column are few: their ids
 * are read from the column's index by a loose index scan (one probe per person), sorted by name, and
 * each one's leads are walked in id order on the (person, id) index until the page is full (the
 * incremental sort stops there). Leads without a person are pickPage's second step.
 */
function personPageQuery(sql: Db, cond: Fragment, column: string, dir: Fragment, limit: number, offset: number, small: boolean): Fragment {
  const col = sql(column);
  if (small) {
    return sql`SELECT x.id FROM (SELECT l.id, u.full_name AS name, u.id AS person FROM leads l LEFT JOIN users u ON u.id = l.${col}
                                  WHERE ${cond} OFFSET 0) x
                ORDER BY x.name ${dir} NULLS LAST, x.person ${dir} NULLS LAST, x.id ${dir} LIMIT ${limit} OFFSET ${offset}`;
  }
  return sql`
    WITH RECURSIVE people AS (
      (SELECT s.${col} AS uid FROM leads s WHERE s.${col} IS NOT NULL ORDER BY s.${col} LIMIT 1)
      UNION ALL
      SELECT (SELECT s.${col} FROM leads s WHERE s.${col} > people.uid ORDER BY s.${col} LIMIT 1) FROM people WHERE people.uid IS NOT NULL
    )
    SELECT x.id
      FROM (SELECT u.id AS uid, u.full_name FROM users u WHERE u.id IN (SELECT uid FROM people) ORDER BY u.full_name ${dir}, u.id ${dir}) p
     CROSS JOIN LATERAL (SELECT l.id FROM leads l WHERE l.${col} = p.uid AND ${cond} ORDER BY l.id ${dir} LIMIT ${offset + limit}) x
     ORDER BY p.full_name ${dir}, p.uid ${dir}, x.id ${dir} LIMIT ${limit} OFFSET ${offset}`;
}

const iso = (v: unknown) => (v ? (v as Date).toISOString() : null);

/** Where a page starts: deeper than MAX_DEPTH rows is answered with the last page within it. */
export function pageOffset(q: Pick<LeadListQuery, 'limit' | 'offset'>): { offset: number; bounded: boolean } {
  const bounded = q.offset + q.limit > MAX_DEPTH;
  return { bounded, offset: bounded ? Math.max(0, Math.floor((MAX_DEPTH - q.limit) / q.limit) * q.limit) : q.offset };
}

/** The page's rows with their people and status colour, by id (one query: no N+1). */
function pageRows(sql: Db, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([] as postgres.Row[]);
  return sql`
      SELECT l.id, l.first_name, l.last_name, l.email, l.phone, l.first_note, l.country, l.city, l.lead_status,
             st.color AS status_color, l."group", l.manager_id, m.full_name AS manager_name, l.agent_id, a.full_name AS agent_name,
             l.ret_id, r.full_name AS ret_name, l.created_at, l.deposited_at, l.last_access, l.ftd_at, l.funnel_link, l.reference,
             l.lead_source_id, l.affiliate_id, af.full_name AS affiliate_name, l.user_id, cu.full_name AS linked_name, cu.is_email_verified AS linked_verified
        FROM leads l
        LEFT JOIN users m ON m.id = l.manager_id
        LEFT JOIN users a ON a.id = l.agent_id
        LEFT JOIN users r ON r.id = l.ret_id
        LEFT JOIN users af ON af.id = l.affiliate_id
        LEFT JOIN users cu ON cu.id = l.user_id
        LEFT JOIN LATERAL (SELECT s.color FROM sales_statuses s WHERE lower(s.status) = lower(l.lead_status) LIMIT 1) st ON true
       WHERE l.id IN ${sql(ids)}`;
}

/**
 * One page of a screen: the page's ids picked by the sort's (column, id) index, then only those
 * rows read with their people and status colour (no N+1). Pages reach MAX_DEPTH rows deep
 * (bounded pagination): a deeper page is answered with the last page within it.
 */
export async function listLeads(sql: Sql, ctx: ListContext, asked: LeadListQuery, opts: { exactCountLimit?: number } = {}): Promise<{
  rows: LeadRow[]; total: number; estimated: boolean; bounded: boolean; offset: number;
}> {
  // a masked caller's sort by a masked column is ignored (the order would tell the hidden values): by id instead
  const q: LeadListQuery = ctx.masked && MASKED_SORTS.includes(asked.sort) ? { ...asked, sort: 'id' } : asked;
  const resolved = await resolveScope(sql, ctx.caller);
  if (!resolved) return { rows: [], total: 0, estimated: false, bounded: false, offset: 0 };
  const cond = leadCondition(sql, ctx, q, resolved);
  const { offset, bounded } = pageOffset(q);
  // planned for the values at hand: the plan PostgreSQL caches for a prepared statement after five
  // runs guesses at any status, agent or date, and walks the wrong index for the rare ones
  const { count, ids, found } = await sql.begin(async (t) => {
    await t`SET LOCAL plan_cache_mode = force_custom_plan`;
    const count = await countLeads(t, cond, opts.exactCountLimit ?? EXACT_COUNT_LIMIT);
    const ids = await pickPage(t, cond, q, offset, !count.estimated && count.total <= SMALL_LIST);
    return { count, ids, found: await pageRows(t, ids) };
  });

  const byId = new Map(found.map((r) => [Number(r.id), r]));
  const rows = ids.map((id) => byId.get(id)).filter((r) => r !== undefined);
  const seen = offset + rows.length + (count.estimated && rows.length === q.limit ? 1 : 0);
  const total = count.estimated ? Math.max(count.total, seen) : count.total;
  return {
    total, estimated: count.estimated, bounded, offset,
    rows: rows.map((r): LeadRow => ({
      id: Number(r.id), firstName: r.first_name, lastName: r.last_name,
      // masked on the server: the full value never leaves it for these callers
      email: ctx.masked ? maskEmail(r.email) : r.email,
      phone: ctx.masked ? maskPhone(r.phone) : r.phone,
      note: r.first_note, country: r.country, city: r.city, status: r.lead_status, statusColor: r.status_color ?? null,
      group: r.group, managerId: r.manager_id === null ? null : Number(r.manager_id), managerName: r.manager_name ?? null,
      agentId: r.agent_id === null ? null : Number(r.agent_id), agentName: r.agent_name ?? null,
      retId: r.ret_id === null ? null : Number(r.ret_id), retName: r.ret_name ?? null,
      registeredAt: (r.created_at as Date).toISOString(), depositedAt: iso(r.deposited_at), lastAccess: iso(r.last_access),
      ftdAt: iso(r.ftd_at), funnelLink: r.funnel_link, reference: r.reference, leadSourceId: r.lead_source_id,
      affiliateId: r.affiliate_id === null ? null : Number(r.affiliate_id), affiliateName: r.affiliate_name ?? null,
      linkedId: r.user_id === null ? null : Number(r.user_id), linkedName: r.linked_name ?? null,
      linkedVerified: r.user_id === null ? null : r.linked_verified === true,
    })),
  };
}

// ------------------------------------------------------------------ choices

export interface Choice { id: number; name: string; email: string }
export interface StatusChoice { id: number; status: string; color: string; isDefault: boolean }

export async function statusChoices(sql: Sql): Promise<StatusChoice[]> {
  const rows = await sql`SELECT id, status, color, is_default FROM sales_statuses ORDER BY id LIMIT 999`;
  return rows.map((r) => ({ id: Number(r.id), status: r.status, color: r.color, isDefault: r.is_default }));
}

/**
 * Staff of a role the caller may pick (the agent filter, the assign dialog, the edit pickers): for
 * admins every active one, for managers the members of their teams (and themselves as manager).
 */
export async function staffChoices(sql: Sql, caller: Caller, roleId: typeof ROLE.manager | typeof ROLE.sales | typeof ROLE.retention): Promise<Choice[]> {
  if (!isBackOffice(caller.roleId)) return [];
  const rows = isAdmin(caller.roleId)
    ? await sql`SELECT id, full_name, email FROM users WHERE role_id = ${roleId} AND deleted_at IS NULL AND is_active ORDER BY full_name, id LIMIT 500`
    : roleId === ROLE.manager
      ? await sql`SELECT id, full_name, email FROM users WHERE id = ${caller.id}`
      : await sql`SELECT u.id, u.full_name, u.email FROM users u
                   WHERE u.role_id = ${roleId} AND u.deleted_at IS NULL AND u.is_active
                     AND u.id IN (SELECT m.user_id FROM team_members m JOIN teams t ON t.id = m.team_id WHERE t.manager_id = ${caller.id})
                   ORDER BY u.full_name, u.id LIMIT 500`;
  return rows.map((r) => ({ id: Number(r.id), name: r.full_name, email: r.email }));
}

// ------------------------------------------------------------------ actions

/** What a lead action answers: its toast (with the rows it changed, or a contact revealed), or a refusal that changed nothing. */
export type ActionResult = Outcome<{
  values?: Record<string, string | number>;
  count?: number;
  /** a contact revealed to a masked agent ('reveal') */
  revealed?: { id: number; field: 'email' | 'phone'; value: string };
}>;
const NOT_FOUND = refuse(404, 'Lead not found');

export interface Selection { all: boolean; ids: number[] }

/**
 * The rows a bulk action touches: the list's own condition, narrowed to the selected ids unless the
 * selection is 'all'. Selected ids outside it (another's lead, a deleted one, one that left the list)
 * refuse the whole action: nothing changes. (Answers { cond }: a bare fragment from an async function would run.)
 */
async function selectionCondition(sql: Db, ctx: ListContext, f: LeadFilters, sel: Selection): Promise<{ cond: Fragment } | Refusal> {
  const resolved = await resolveScope(sql, ctx.caller);
  if (!resolved) return refuse(403, 'Forbidden');
  const cond = leadCondition(sql, ctx, f, resolved);
  if (sel.all) return { cond };
  if (!sel.ids.length) return refuse(400, 'Select at least one lead');
  if (sel.ids.length > 5000) return refuse(400, 'Select at most 5000 leads, or all of the list');
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM leads l WHERE ${cond} AND l.id IN ${sql(sel.ids)}`;
  if (n !== sel.ids.length) return NOT_FOUND;
  return { cond: sql`${cond} AND l.id IN ${sql(sel.ids)}` };
}

const isFragment = (v: { cond: Fragment } | Refusal): v is { cond: Fragment } => 'cond' in v;

/**
 * Runs a bulk action's one UPDATE (built by `update` around its `updated_at` value) and answers how
 * many leads it changed. With a progress token (the page asks for one above a few thousand leads)
 * the rows are counted first and the statement ticks statement_progress_tick per changed row, so
 * the page's poll shows how far it is (shared/statement-progress.server.ts).
 */
async function followed(t: Db, tracker: { token: string; progress: ProgressTracker } | null, rows: Fragment, update: (updatedAt: Fragment) => Fragment): Promise<number> {
  if (!tracker) return (await t`${update(t`now()`)}`).count;
  const [{ n }] = await t`SELECT count(*)::int AS n FROM leads l WHERE ${rows}`;
  tracker.progress.start(Number(n));
  return (await t`${update(t`statement_progress_tick(${tracker.token}::uuid, ${tracker.progress.every(Number(n))})`)}`).count;
}

/** Runs a bulk action's transaction with its progress followed (when the page sent a token), finished after it ends. */
async function withTracker(sql: Sql, actorId: number, token: string | null, run: (tracker: { token: string; progress: ProgressTracker } | null) => Promise<ActionResult>): Promise<ActionResult> {
  const tracker = token ? { token, progress: trackProgress(sql, token, actorId) } : null;
  let result: ActionResult | null = null;
  try {
    result = await run(tracker);
    return result;
  } finally {
    await tracker?.progress.finish(result?.ok ? result.count ?? null : null);
  }
}

/**
 * A bulk move (docs/specs.md#crm-lead-lists): one UPDATE over the list's condition, limited to the groups the move may
 * come from; one audit row with the screen, the filter or the ids, and the count.
 */
export async function bulkMove(sql: Sql, ctx: ListContext, f: LeadFilters, sel: Selection, target: LeadGroup, ip: string | null, progress: string | null = null): Promise<ActionResult> {
  if (!moveAllowed(ctx.screen, target, ctx.caller.roleId)) return refuse(403, 'This move is not allowed');
  const from = sourceGroups(ctx.screen, target);
  if (!from.length) return refuse(403, 'This move is not allowed');
  return withTracker(sql, ctx.caller.id, progress, (tracker) => sql.begin(async (t) => {
    const picked = await selectionCondition(t, ctx, f, sel);
    if (!isFragment(picked)) return picked;
    const rows = t`${picked.cond} AND l."group" IN ${t(from)}`;
    const count = await followed(t, tracker, rows,
      (at) => t`UPDATE leads l SET "group" = ${target}::lead_group, updated_at = ${at} WHERE ${rows}`);
    await audit(t, {
      actorId: ctx.caller.id, action: 'lead.bulk_move', targetKind: 'leads', ip: auditIp(ip),
      before: { screen: ctx.screen.key, from, selection: sel.all ? { all: true, filter: f } : { ids: sel.ids } },
      after: { group: target, count },
    });
    return { ok: true, toast: 'Lead moved successfully', count, values: { count } };
  }));
}

/** Bulk assign-agent: the sales agent (agentId) or, on the retention screen, the retention agent (retId). Admins and managers only. */
export async function bulkAssign(sql: Sql, ctx: ListContext, f: LeadFilters, sel: Selection, agentId: number, ip: string | null, progress: string | null = null): Promise<ActionResult> {
  if (!isBackOffice(ctx.caller.roleId)) return refuse(403, 'Forbidden');
  const role = ctx.screen.agentField === 'retId' ? ROLE.retention : ROLE.sales;
  const agents = await staffChoices(sql, ctx.caller, role);
  if (!agents.some((a) => a.id === agentId)) return refuse(400, 'Agent not found', 'agentId');
  const notices: Notice[] = [];
  return withTracker(sql, ctx.caller.id, progress, (tracker) => sql.begin(async (t) => {
    const picked = await selectionCondition(t, ctx, f, sel);
    if (!isFragment(picked)) return picked;
    const col = ctx.screen.agentField === 'retId' ? t`ret_id` : t`agent_id`;
    // only the leads not already theirs change (and count): the agent is told how many are new to them
    const rows = t`${picked.cond} AND l.${col} IS DISTINCT FROM ${agentId}`;
    const count = await followed(t, tracker, rows,
      (at) => t`UPDATE leads l SET ${col} = ${agentId}, updated_at = ${at} WHERE ${rows}`);
    await audit(t, {
      actorId: ctx.caller.id, action: 'lead.bulk_assign', targetKind: 'leads', ip: auditIp(ip),
      before: { screen: ctx.screen.key, selection: sel.all ? { all: true, filter: f } : { ids: sel.ids } },
      after: { [ctx.screen.agentField]: agentId, count },
    });
    notices.push(...await notifyAssigned(t, ctx.caller, agentId, ctx.screen.agentField === 'retId' ? 'retention' : 'sales', count));
    return { ok: true, toast: 'Agents assigned successfully', count, values: { count } };
  })).then(async (r) => {
    if (r.ok) await publishNotices(notices);
    return r;
  });
}

/** Each agent's list: where an assignment notification leads. */
export const AGENT_LISTS = { sales: '/admin/crm/sales/all', retention: '/admin/crm/retention' } as const;

/**
 * Tells an agent (if active) that `count` leads were assigned to them: one notification per action,
 * in its transaction. Nothing when the action assigned none.
 */
async function notifyAssigned(t: Db, caller: Caller, agentId: number, list: 'sales' | 'retention', count: number): Promise<Notice[]> {
  if (count < 1) return [];
  const [by] = await t`SELECT full_name FROM users WHERE id = ${caller.id}`;
  const name = String(by?.full_name ?? '');
  return notifyStaff(t, { ids: [agentId] }, {
    title: 'Leads assigned to you',
    description: count === 1 ? `A lead was assigned to you by ${name}.` : `${count} leads were assigned to you by ${name}.`,
    url: AGENT_LISTS[list],
    data: { kind: 'leads.assigned', count, list, by: name },
  });
}

/** One lead the caller may see (any screen), or null. */
async function leadInScope(sql: Db, caller: Caller, id: number, lock = false) {
  // the staff's actions only: an affiliate deletes their own leads through deleteOwnLead
  if (!STAFF.includes(caller.roleId)) return null;
  const resolved = await resolveScope(sql, caller);
  if (!resolved) return null;
  const scope = scopeCondition(sql, resolved);
  const [row] = await sql`
    SELECT l.id, l.first_name, l.last_name, l.email, l.phone, l.country, l.city, l.funnel_link, l.reference, l.lead_source_id,
           l.lead_status, l.manager_id, l.agent_id, l.ret_id, l.user_id, l."group"
      FROM leads l WHERE l.id = ${id} AND l.deleted_at IS NULL AND ${scope} ${lock ? sql`FOR UPDATE` : sql``}`;
  return row ?? null;
}

async function statusExists(sql: Db, status: string): Promise<boolean> {
  // New is every lead's default status (docs/specs.md#crm-configuration), a status whether or not the list names it
  if (status === 'New') return true;
  const [r] = await sql`SELECT 1 FROM sales_statuses WHERE lower(status) = lower(${status})`;
  return !!r;
}

async function staffOfRole(sql: Db, id: number | null, roleId: number): Promise<boolean> {
  if (id === null) return true;
  const [r] = await sql`SELECT 1 FROM users WHERE id = ${id} AND role_id = ${roleId} AND deleted_at IS NULL`;
  return !!r;
}

export interface LeadEdit {
  id: number; firstName?: string; lastName?: string; email?: string; phone?: string; country?: string; city: string;
  funnelLink: string | null; reference: string | null; leadSourceId: string | null; leadStatus?: string;
  managerId: number | null; agentId: number | null; retId: number | null;
}

/**
 * Edit Lead (docs/specs.md#crm-lead-lists): admins every field; managers all but the sale manager; agents (5, 6) the
 * status only (they see no other lead field, and their contacts may be masked). Pickers must name
 * staff of their role; a manager picks among their teams' agents. Audited with before and after.
 */
export async function editLead(sql: Sql, caller: Caller, v: LeadEdit, ip: string | null): Promise<ActionResult> {
  const notices: Notice[] = [];
  const result = await sql.begin(async (t): Promise<ActionResult> => {
    const lead = await leadInScope(t, caller, v.id, true);
    if (!lead) return NOT_FOUND;
    const agent = isAgent(caller.roleId);
    if (v.leadStatus !== undefined && v.leadStatus !== lead.lead_status && !(await statusExists(t, v.leadStatus))) {
      return refuse(400, 'Status not found', 'leadStatus');
    }
    // staff who edit the fields check them with the one lead schema (the API's and the import's)
    const checked = agent ? null : checkLeadFields({ ...v });
    if (checked && !checked.ok) return refuseFields(400, checked.fieldErrors);
    const c = checked?.ok ? checked.value : null;
    const next = agent || !c ? {
      first_name: lead.first_name, last_name: lead.last_name, email: lead.email, phone: lead.phone, country: lead.country,
      city: lead.city, funnel_link: lead.funnel_link, reference: lead.reference, lead_source_id: lead.lead_source_id,
      lead_status: v.leadStatus ?? lead.lead_status, manager_id: lead.manager_id, agent_id: lead.agent_id, ret_id: lead.ret_id,
    } : {
      first_name: c.firstName, last_name: c.lastName, email: c.email, phone: c.phone, country: c.countryName, city: c.city ?? '',
      funnel_link: c.funnelLink ?? null, reference: c.reference ?? null, lead_source_id: c.leadSourceId ?? null, lead_status: v.leadStatus ?? lead.lead_status,
      manager_id: isAdmin(caller.roleId) ? v.managerId : lead.manager_id, agent_id: v.agentId, ret_id: v.retId,
    };
    if (!agent) {
      const errors: Record<string, string[]> = {};
      if (isAdmin(caller.roleId) && !(await staffOfRole(t, next.manager_id, ROLE.manager))) errors.managerId = ['Manager not found'];
      if (isManager(caller.roleId)) {
        const members = await teamMembers(t, caller.id);
        if (next.agent_id !== null && next.agent_id !== lead.agent_id && !members.includes(next.agent_id)) errors.agentId = ['Agent not found'];
        if (next.ret_id !== null && next.ret_id !== lead.ret_id && !members.includes(next.ret_id)) errors.retId = ['Agent not found'];
      }
      if (!errors.agentId && !(await staffOfRole(t, next.agent_id, ROLE.sales))) errors.agentId = ['Agent not found'];
      if (!errors.retId && !(await staffOfRole(t, next.ret_id, ROLE.retention))) errors.retId = ['Agent not found'];
      if (Object.keys(errors).length) return refuseFields(400, errors);
    }
    await t`
      UPDATE leads SET first_name = ${next.first_name}, last_name = ${next.last_name}, email = ${next.email}, phone = ${next.phone},
             phone_e164 = ${leadPhoneE164(next.phone, next.country)}, country = ${next.country}, city = ${next.city}, funnel_link = ${next.funnel_link}, reference = ${next.reference},
             lead_source_id = ${next.lead_source_id}, lead_status = ${next.lead_status}, manager_id = ${next.manager_id},
             agent_id = ${next.agent_id}, ret_id = ${next.ret_id}, updated_at = now()
       WHERE id = ${v.id}`;
    const before = Object.fromEntries(Object.keys(next).map((k) => [k, lead[k]]));
    await audit(t, { actorId: caller.id, action: 'lead.update', targetKind: 'lead', targetId: v.id, before, after: next, ip: auditIp(ip) });
    // a new agent or retention agent hears of it (not one who already had the lead)
    if (next.agent_id !== null && next.agent_id !== lead.agent_id) notices.push(...await notifyAssigned(t, caller, next.agent_id, 'sales', 1));
    if (next.ret_id !== null && next.ret_id !== lead.ret_id) notices.push(...await notifyAssigned(t, caller, next.ret_id, 'retention', 1));
    return { ok: true, toast: 'Lead edited successfully' };
  });
  if (result.ok) await publishNotices(notices);
  return result;
}

/** Delete ('Are you sure to delete this lead?'): a soft delete (deleted_at), admins and managers, audited. */
export async function deleteLead(sql: Sql, caller: Caller, id: number, ip: string | null): Promise<ActionResult> {
  if (!isBackOffice(caller.roleId)) return refuse(403, 'Forbidden');
  return sql.begin(async (t) => {
    const lead = await leadInScope(t, caller, id, true);
    if (!lead) return NOT_FOUND;
    await t`UPDATE leads SET deleted_at = now(), updated_at = now() WHERE id = ${id}`;
    await audit(t, { actorId: caller.id, action: 'lead.delete', targetKind: 'lead', targetId: id, before: { ...lead }, after: { deleted: true }, ip: auditIp(ip) });
    return { ok: true, toast: 'Lead deleted successfully' };
  });
}

/**
 * An affiliate deletes one of their own leads (docs/specs.md#affiliates-and-the-leads-api, DELETE /affiliate/leads/{id}): a soft delete,
 * audited; another affiliate's lead, a deleted one or no lead at all is 'Lead not found' and nothing changes.
 */
export async function deleteOwnLead(sql: Sql, caller: Caller, id: number, ip: string | null): Promise<ActionResult> {
  if (!isAffiliate(caller.roleId)) return refuse(403, 'Forbidden');
  return sql.begin(async (t) => {
    const [lead] = await t`
      UPDATE leads SET deleted_at = now(), updated_at = now()
       WHERE id = ${id} AND affiliate_id = ${caller.id} AND deleted_at IS NULL
       RETURNING id, first_name, last_name, email, phone, country, lead_status, "group"`;
    if (!lead) return NOT_FOUND;
    await audit(t, { actorId: caller.id, action: 'lead.delete', targetKind: 'lead', targetId: id, before: { ...lead }, after: { deleted: true }, ip: auditIp(ip) });
    return { ok: true, toast: 'Lead deleted successfully' };
  });
}

export interface NoteRow { id: number; content: string; createdAt: string; author: string | null }

/** A lead's notes, newest first, with their author; null when the lead is not the caller's to see. */
export async function leadNotes(sql: Sql, caller: Caller, leadId: number): Promise<NoteRow[] | null> {
  if (!STAFF.includes(caller.roleId) || !(await leadInScope(sql, caller, leadId))) return null;
  const rows = await sql`
    SELECT n.id, n.content, n.created_at, u.full_name FROM notes n LEFT JOIN users u ON u.id = n.user_id
     WHERE n.lead_id = ${leadId} ORDER BY n.id DESC LIMIT 200`;
  return rows.map((r) => ({ id: Number(r.id), content: r.content, createdAt: (r.created_at as Date).toISOString(), author: r.full_name ?? null }));
}

export async function addNote(sql: Sql, caller: Caller, leadId: number, content: string, ip: string | null): Promise<ActionResult> {
  return sql.begin(async (t) => {
    if (!(await leadInScope(t, caller, leadId))) return NOT_FOUND;
    const [n] = await t`INSERT INTO notes (lead_id, user_id, content) VALUES (${leadId}, ${caller.id}, ${content}) RETURNING id`;
    await t`UPDATE leads SET updated_at = now() WHERE id = ${leadId}`;
    await audit(t, { actorId: caller.id, action: 'lead.note', targetKind: 'lead', targetId: leadId, after: { noteId: Number(n.id), content }, ip: auditIp(ip) });
    return { ok: true, toast: 'Notes created successfully' };
  });
}

export interface LeadAdd {
  firstName: string; lastName: string; email: string; phone: string; country: string; city: string;
  funnelLink: string | null; reference: string | null; leadStatus: string;
}

/** The admin area's lead-add form (docs/specs.md#crm-lead-lists): a manual sales lead; a manager's own lead is managed by them. */
export async function addLead(sql: Sql, caller: Caller, v: LeadAdd, ip: string | null): Promise<ActionResult> {
  if (!isBackOffice(caller.roleId)) return refuse(403, 'Forbidden');
  const checked = checkLeadFields({ ...v });
  if (!checked.ok) return refuseFields(400, checked.fieldErrors);
  const c = checked.value;
  if (!(await statusExists(sql, v.leadStatus))) return refuse(400, 'Status not found', 'leadStatus');
  return sql.begin(async (t) => {
    const [l] = await t`
      INSERT INTO leads (first_name, last_name, email, phone, phone_e164, country, city, funnel_link, reference, lead_status, "group", is_live, manager_id)
      VALUES (${c.firstName}, ${c.lastName}, ${c.email}, ${c.phone}, ${leadPhoneE164(c.phone, c.countryName)}, ${c.countryName}, ${c.city ?? ''},
              ${c.funnelLink ?? null}, ${c.reference ?? null}, ${v.leadStatus}, 'sales', false, ${isManager(caller.roleId) ? caller.id : null})
      RETURNING id`;
    await audit(t, { actorId: caller.id, action: 'lead.create', targetKind: 'lead', targetId: Number(l.id), after: v, ip: auditIp(ip) });
    return { ok: true, toast: 'Leads added successfully', values: { id: Number(l.id) } };
  });
}

/**
 * Convert a lead to a user (docs/specs.md#crm-lead-lists): a customer (role 3) with the lead's name, email and
 * contacts and the password set here, the wallets every sign-up gets (auth's openCustomerWallets),
 * and the lead linked to them. The lead needs an email no live user has.
 */
export async function convertLead(sql: Sql, caller: Caller, id: number, password: string, ip: string | null): Promise<ActionResult> {
  if (!isBackOffice(caller.roleId)) return refuse(403, 'Forbidden');
  const cfg = await loadAuthConfig(sql);
  const hash = await hashPassword(password);
  try {
    const r = await sql.begin(async (t): Promise<ActionResult> => {
      const lead = await leadInScope(t, caller, id, true);
      if (!lead) return NOT_FOUND;
      if (lead.user_id !== null) return refuse(409, 'This lead is already a user');
      if (!lead.email || !/^[^\s@]+@[^\s@]+$/.test(lead.email)) return refuse(400, 'The lead needs a valid email to become a user');
      const [taken] = await t`SELECT 1 FROM users WHERE email = ${lead.email} AND deleted_at IS NULL`;
      if (taken) return refuse(409, 'Email already exists');
      const fullName = `${lead.first_name} ${lead.last_name}`.trim().slice(0, 200) || lead.email;
      const [u] = await t`
        INSERT INTO users (email, password_hash, full_name, role_id, is_active, is_email_verified, manager_id)
        VALUES (${lead.email}, ${hash}, ${fullName}, 3, true, false, ${lead.manager_id}) RETURNING id`;
      const userId = Number(u.id);
      await t`INSERT INTO profiles (user_id, phone, country, city) VALUES (${userId}, ${lead.phone}, ${lead.country}, ${lead.city})`;
      await openCustomerWallets(t, userId, cfg.currencies[0], cfg.demoInitialBalance);
      await t`UPDATE leads SET user_id = ${userId}, updated_at = now() WHERE id = ${id}`;
      await audit(t, { actorId: caller.id, action: 'lead.convert', targetKind: 'lead', targetId: id, before: { userId: null }, after: { userId, mailed: true }, ip: auditIp(ip) });
      return { ok: true, toast: 'Lead converted: the customer was mailed a link to choose their password and sign in', values: { userId, email: String(lead.email) } };
    });
    // the customer's way in (docs/specs.md#crm-lead-lists): a link that sets their password and verifies the address
    if (r.ok && r.values) await sendAccountOpenedMail(sql, cfg, Number(r.values.userId), String(r.values.email));
    return r;
  } catch (e) {
    if (pgCode(e) === '23505') return refuse(409, 'Email already exists');
    throw e;
  }
}

/**
 * 'Reveal' (docs/specs.md#crm-lead-lists): a masked agent whose role the broker allows reads one contact of one lead in
 * their scope. Each reveal is an audit row (who, which lead, which field, when) written before the
 * value leaves the server; the value itself is not copied into the audit trail.
 */
export async function revealContact(sql: Sql, caller: Caller, id: number, field: 'email' | 'phone', ip: string | null): Promise<ActionResult> {
  if (!MASKED_ROLES.includes(caller.roleId) || !(await revealAllowed(sql, caller))) return refuse(403, 'Revealing contacts is not allowed');
  return sql.begin(async (t) => {
    const lead = await leadInScope(t, caller, id);
    if (!lead) return NOT_FOUND;
    await audit(t, { actorId: caller.id, action: 'lead.reveal', targetKind: 'lead', targetId: id, after: { field }, ip: auditIp(ip) });
    return { ok: true, toast: '', revealed: { id, field, value: String(lead[field] ?? '') } };
  });
}
