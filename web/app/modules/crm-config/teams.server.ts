// The teams (/admin/crm-config/teams, admin only; docs/specs.md#crm-configuration): the
// server-paged table (name, code, manager, members), add, edit and delete. A team has one manager
// (a user with role 2) and any number of members (sales and retention agents, roles 5 and 6); an
// agent may be in several teams (team_members' key is the pair). The code is generated here,
// unique. The roles are checked here, in the transaction that writes the team. Every change writes
// an audit row with before and after.
//
// Team membership decides what a manager sees in the CRM lists: managerLeadScope() below is the
// SQL condition the lead lists add for role 2, managerAgentIds() the agents it names.
import { randomInt } from 'node:crypto';
import type { Db, Sql } from '~/shared/db.server.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { listQuery, type ListQuery } from '~/components/ui/list-params.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { refuse, replyOutcome, type Actor, type Outcome } from '~/shared/result.server.ts';
import { CRM_CONFIG_PARSE, TEAM_ACTIONS, type TeamInput } from './schemas.ts';
import { ROLE } from '~/shared/roles.ts';

export const MANAGER_ROLE = ROLE.manager;
export const MEMBER_ROLES = [ROLE.sales, ROLE.retention] as const;

// ---------------------------------------------------------------- what a manager sees

/**
 * The agents (roles 5 and 6) in the teams `managerId` manages, each once, by id.
 */
export async function managerAgentIds(sql: Sql, managerId: number): Promise<number[]> {
  const rows = await sql`
    SELECT DISTINCT tm.user_id FROM teams t JOIN team_members tm ON tm.team_id = t.id
     WHERE t.manager_id = ${managerId}::bigint ORDER BY tm.user_id`;
  return rows.map((r) => Number(r.user_id));
}

/**
 * The SQL condition on a row of `leads` (under `alias`) that a manager sees in the CRM lists:
 * the lead is theirs as its manager, or its sales agent or retention agent is in one of the teams
 * they manage. The team's agents are read once per statement (an InitPlan), so the three
 * alternatives are index scans of leads_manager_idx, leads_agent_idx and leads_ret_idx.
 *
 *   sql`SELECT … FROM leads l WHERE l."group" = 'sales' AND ${managerLeadScope(sql, s.user.id, 'l')}`
 */
export function managerLeadScope(sql: Sql, managerId: number, alias = 'leads') {
  const t = sql(alias);
  const agents = sql`ARRAY(SELECT tm.user_id FROM teams mt JOIN team_members tm ON tm.team_id = mt.id WHERE mt.manager_id = ${managerId}::bigint)`;
  // and the pool of API leads nobody holds (docs/specs.md#crm-lead-lists; crm's scopeCondition, index leads_pool_idx)
  const pool = sql`(${t}.is_live AND ${t}.manager_id IS NULL AND ${t}.agent_id IS NULL AND ${t}.ret_id IS NULL AND ${t}.deleted_at IS NULL)`;
  return sql`(${t}.manager_id = ${managerId}::bigint OR ${t}.agent_id = ANY (${agents}) OR ${t}.ret_id = ANY (${agents}) OR ${pool})`;
}

// ---------------------------------------------------------------- the list

const SORTS = { id: 'id', name: 'name', code: 'code' } as const;
export const TEAM_SORTS = Object.keys(SORTS) as (keyof typeof SORTS)[];

export interface TeamMember { id: number; fullName: string; email: string; roleId: number }
export interface TeamRow {
  id: number; name: string; code: string;
  manager: { id: number; fullName: string } | null;
  members: TeamMember[];
}
export interface StaffChoice { id: number; fullName: string; email: string; roleId: number }

const like = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One page of teams, searched by name or code, each with its manager and members (one query). */
export async function listTeams(sql: Sql, q: Pick<ListQuery, 'limit' | 'offset' | 'sort' | 'dir' | 'search'>) {
  const term = q.search.trim();
  const where = term ? sql`WHERE t.name ILIKE ${like(term)} OR t.code ILIKE ${like(term)}` : sql``;
  const column = SORTS[(q.sort in SORTS ? q.sort : 'id') as keyof typeof SORTS];
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  const [rows, [count]] = await Promise.all([
    sql`
      WITH page AS (
        SELECT t.id, t.name, t.code, t.manager_id FROM teams t ${where}
         ORDER BY ${sql('t.' + column)} ${dir}, t.id ${dir} LIMIT ${q.limit} OFFSET ${q.offset})
      SELECT p.*, m.full_name AS manager_name,
             coalesce((SELECT json_agg(json_build_object('id', u.id, 'fullName', u.full_name, 'email', u.email, 'roleId', u.role_id) ORDER BY u.full_name, u.id)
                         FROM team_members tm JOIN users u ON u.id = tm.user_id AND u.deleted_at IS NULL
                        WHERE tm.team_id = p.id), '[]') AS members
        FROM page p LEFT JOIN users m ON m.id = p.manager_id AND m.deleted_at IS NULL
       ORDER BY ${sql('p.' + column)} ${dir}, p.id ${dir}`,
    sql`SELECT count(*)::int AS n FROM teams t ${where}`,
  ]);
  return {
    total: count.n as number,
    rows: rows.map((r): TeamRow => ({
      id: Number(r.id), name: r.name, code: r.code,
      manager: r.manager_name === null ? null : { id: Number(r.manager_id), fullName: r.manager_name },
      members: (r.members as TeamMember[]).map((m) => ({ ...m, id: Number(m.id) })),
    })),
  };
}

/** Active staff of the roles the team editor picks from: managers (2) and agents (5, 6). */
export async function teamChoices(sql: Sql): Promise<{ managers: StaffChoice[]; agents: StaffChoice[] }> {
  const rows = await sql`
    SELECT id, full_name, email, role_id FROM users
     WHERE role_id = ANY(${[ROLE.manager, ...MEMBER_ROLES]}::smallint[]) AND deleted_at IS NULL AND is_active
     ORDER BY lower(full_name), id LIMIT 2000`;
  const all = rows.map((r): StaffChoice => ({ id: Number(r.id), fullName: r.full_name, email: r.email, roleId: r.role_id }));
  return { managers: all.filter((u) => u.roleId === MANAGER_ROLE), agents: all.filter((u) => u.roleId !== MANAGER_ROLE) };
}

// ---------------------------------------------------------------- add, edit, delete

/** Letters and digits that read unambiguously (no 0/O, 1/I/L). */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/** The team-code rule (docs/specs.md#crm-configuration): `TM-` and 6 characters of CODE_ALPHABET; seeds follow it too. */
export const TEAM_CODE = /^TM-[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{6}$/;
export function newTeamCode(): string {
  let s = 'TM-';
  for (let i = 0; i < 6; i++) s += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return s;
}

const notFound = () => refuse(404, 'Team not found');
const SAVED = { created: { toast: 'Team added successfully' }, updated: { toast: 'Team updated successfully' } } as const;

async function snapshot(tx: Db, id: number) {
  const [t] = await tx`
    SELECT t.name, t.code, t.manager_id,
           coalesce((SELECT array_agg(user_id ORDER BY user_id) FROM team_members WHERE team_id = t.id), '{}') AS member_ids
      FROM teams t WHERE t.id = ${id}`;
  return t ? { name: t.name, code: t.code, managerId: Number(t.manager_id), memberIds: (t.member_ids as (number | string)[]).map(Number) } : null;
}

/** The role checks: the manager a manager, every member an agent; a refusal names the field. */
async function checkPeople(tx: Db, input: TeamInput) {
  const [m] = await tx`SELECT role_id FROM users WHERE id = ${input.userId} AND deleted_at IS NULL FOR KEY SHARE`;
  if (!m || m.role_id !== MANAGER_ROLE) return refuse(422, 'The manager must be a user with the Manager role', 'userId');
  if (input.userIds.length) {
    const ok = await tx`SELECT id FROM users WHERE id IN ${tx(input.userIds)} AND role_id = ANY(${[...MEMBER_ROLES]}::smallint[]) AND deleted_at IS NULL FOR KEY SHARE`;
    if (ok.length !== input.userIds.length) return refuse(422, 'Members must be sales or retention agents', 'userIds');
  }
  return null;
}

/** Create (no id, a new code) or update (id) a team with its manager and members. */
export async function saveTeam(sql: Sql, input: TeamInput, who: Actor): Promise<Outcome<{ id: number; code: string }>> {
  return sql.begin(async (tx): Promise<Outcome<{ id: number; code: string }>> => {
    // team writers one at a time (the name check below), readers never wait
    await tx`SELECT pg_advisory_xact_lock(hashtext('broker.teams'))`;
    const [clash] = await tx`SELECT id FROM teams WHERE lower(name) = lower(${input.name}) AND id IS DISTINCT FROM ${input.id ?? null}::bigint`;
    if (clash) return refuse(409, 'A team with this name already exists', 'name');
    const bad = await checkPeople(tx, input);
    if (bad) return bad;
    let id: number;
    let before = null;
    if (input.id === undefined) {
      let row;
      for (let attempt = 0; !row && attempt < 8; attempt++) {
        [row] = await tx`INSERT INTO teams (name, code, manager_id) VALUES (${input.name}, ${newTeamCode()}, ${input.userId})
                         ON CONFLICT (code) DO NOTHING RETURNING id`;
      }
      if (!row) throw new Error('no free team code after 8 attempts');
      id = Number(row.id);
    } else {
      id = input.id;
      [before] = await tx`SELECT id FROM teams WHERE id = ${id} FOR UPDATE`;
      if (!before) return notFound();
      before = await snapshot(tx, id);
      await tx`UPDATE teams SET name = ${input.name}, manager_id = ${input.userId} WHERE id = ${id}`;
      await tx`DELETE FROM team_members WHERE team_id = ${id} AND user_id <> ALL (${input.userIds}::bigint[])`;
    }
    if (input.userIds.length) {
      await tx`INSERT INTO team_members (team_id, user_id) SELECT ${id}, unnest(${input.userIds}::bigint[]) ON CONFLICT DO NOTHING`;
    }
    const after = (await snapshot(tx, id))!;
    await audit(tx, {
      actorId: who.actorId, action: input.id === undefined ? 'team.create' : 'team.update', targetKind: 'team', targetId: id,
      before: before ?? undefined, after, ip: who.ip,
    });
    return { ok: true, ...SAVED[input.id === undefined ? 'created' : 'updated'], id, code: after.code };
  });
}

/** Delete a team (its memberships go with it; the leads and the people stay). */
export async function deleteTeam(sql: Sql, id: number, who: Actor): Promise<Outcome> {
  return sql.begin(async (tx): Promise<Outcome> => {
    const [row] = await tx`SELECT id FROM teams WHERE id = ${id} FOR UPDATE`;
    if (!row) return notFound();
    const before = await snapshot(tx, id);
    await tx`DELETE FROM teams WHERE id = ${id}`;
    await audit(tx, { actorId: who.actorId, action: 'team.delete', targetKind: 'team', targetId: id, before, ip: who.ip });
    return { ok: true, toast: 'Team deleted successfully' };
  });
}

// ---------------------------------------------------------------- the route's loader and action

export async function teamsLoader(sql: Sql, s: CurrentSession, params: URLSearchParams) {
  const [list, choices] = await Promise.all([listTeams(sql, listQuery(params, TEAM_SORTS)), teamChoices(sql)]);
  return { ...list, ...choices };
}

export async function teamsAction(sql: Sql, s: CurrentSession, form: FormData, ip: string | null) {
  const { intent, submission } = parseIntent(form, TEAM_ACTIONS, CRM_CONFIG_PARSE);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  const who = { actorId: s.user.id, ip: ip };
  const v = submission.value;
  const r = intent === 'delete' ? await deleteTeam(sql, (v as { id: number }).id, who) : await saveTeam(sql, v as TeamInput, who);
  return replyOutcome(submission, r, intent);
}
