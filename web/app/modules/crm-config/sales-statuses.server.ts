// The sales statuses (/admin/crm-config/sales-statuses, roles 1 and 2;
// docs/specs.md#crm-configuration): the server-paged table, add, edit and delete.
//
// Exactly one status is the default, enforced in PostgreSQL: a partial unique index allows at most
// one, and a deferred constraint trigger refuses a commit that leaves statuses without one
// (migrations/1733070000000_crm-config.sql). Switching the default is one transaction: the old one
// is unset, then the new one set. Every write of the table first takes a table lock that only
// other writers of it wait for (readers never do), so concurrent switches run one after the other
// and the last one wins. The default is what a new lead gets (leads.lead_status's column default,
// default_sales_status()). Leads hold the status's text: renaming a status renames it on its
// leads, and a status that leads have is deleted only with the status they move to (one UPDATE),
// in the same transaction. Every change writes an audit row with before and after.
import type { Db, Sql } from '~/shared/db.server.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { listQuery, type ListQuery } from '~/components/ui/list-params.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { pgCode, refuse, replyOutcome, type Actor, type Outcome } from '~/shared/result.server.ts';
import { CRM_CONFIG_PARSE, SALES_STATUS_ACTIONS, type SalesStatusInput } from './schemas.ts';

/** URL sort id → column (the spec: status and is default are sortable). */
const SORTS = { id: 'id', status: 'status', isDefault: 'is_default' } as const;
export const SALES_STATUS_SORTS = Object.keys(SORTS) as (keyof typeof SORTS)[];

/** The spec's status list limit (the lists' status filters read page=1&limit=999). */
export const STATUS_CHOICES_LIMIT = 999;

export interface SalesStatusRow {
  id: number; status: string; color: string; isDefault: boolean;
  /** some lead has this status (deleting it asks where they move) */
  inUse: boolean;
}
export interface SalesStatusChoice { id: number; status: string; color: string; isDefault: boolean }

const like = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listSalesStatuses(sql: Sql, q: Pick<ListQuery, 'limit' | 'offset' | 'sort' | 'dir' | 'search'>) {
  const term = q.search.trim();
  const where = term ? sql`WHERE s.status ILIKE ${like(term)}` : sql``;
  const column = SORTS[(q.sort in SORTS ? q.sort : 'id') as keyof typeof SORTS];
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  const [rows, [count]] = await Promise.all([
    // in use: one probe of leads_status_idx per row of the page
    sql`SELECT s.id, s.status, s.color, s.is_default,
               EXISTS (SELECT 1 FROM leads l WHERE l.lead_status = s.status) AS in_use
          FROM sales_statuses s ${where}
         ORDER BY ${sql('s.' + column)} ${dir}, s.id ${dir} LIMIT ${q.limit} OFFSET ${q.offset}`,
    sql`SELECT count(*)::int AS n FROM sales_statuses s ${where}`,
  ]);
  return {
    total: count.n as number,
    rows: rows.map((r): SalesStatusRow => ({ id: Number(r.id), status: r.status, color: r.color, isDefault: r.is_default, inUse: r.in_use })),
  };
}

/** Every status (at most the spec's 999), the default first: the selects of the CRM pages. */
export async function salesStatusChoices(sql: Sql): Promise<SalesStatusChoice[]> {
  const rows = await sql`SELECT id, status, color, is_default FROM sales_statuses ORDER BY is_default DESC, status LIMIT ${STATUS_CHOICES_LIMIT}`;
  return rows.map((r) => ({ id: Number(r.id), status: r.status, color: r.color, isDefault: r.is_default }));
}

/** The status a new lead gets: the default one ('New' before any status exists). */
export async function defaultSalesStatus(sql: Sql): Promise<string> {
  const [r] = await sql`SELECT default_sales_status() AS status`;
  return r.status as string;
}

/**
 * For code that sets a lead's status (the lead forms): the status's exact text, read under a
 * share lock that holds off its deletion (and a rename) until the caller's transaction ends; null
 * when no such status exists. Call it inside the transaction that writes the lead.
 */
export async function lockLeadStatus(tx: Sql, status: string): Promise<string | null> {
  const [r] = await tx`SELECT status FROM sales_statuses WHERE lower(status) = lower(${status}) FOR SHARE`;
  return r ? (r.status as string) : null;
}

const snapshot = (r: Record<string, unknown>) => ({ status: r.status, color: r.color, isDefault: r.is_default });
const duplicate = () => refuse(409, 'A sales status with this name already exists', 'status');
const notFound = () => refuse(404, 'Sales status not found');

/** Only writers of sales_statuses wait for each other (SHARE ROW EXCLUSIVE conflicts with itself, not with reads). */
const lockStatuses = (tx: Db) => tx`LOCK TABLE sales_statuses IN SHARE ROW EXCLUSIVE MODE`;

/** Create (no id) or update (id) a status; making it the default unsets the previous default. */
export async function saveSalesStatus(sql: Sql, input: SalesStatusInput, who: Actor): Promise<Outcome<{ id: number }>> {
  try {
    return await sql.begin(async (tx): Promise<Outcome<{ id: number }>> => {
      await lockStatuses(tx);
      const [clash] = await tx`SELECT id FROM sales_statuses WHERE lower(status) = lower(${input.status}) AND id IS DISTINCT FROM ${input.id ?? null}::bigint`;
      if (clash) return duplicate();
      const [current] = await tx`SELECT id, status FROM sales_statuses WHERE is_default`;
      const fields = { status: input.status, color: input.color };
      if (input.id === undefined) {
        // the first status of a fresh install is the default whatever was asked: there is always one
        const makeDefault = input.isDefault || !current;
        if (makeDefault && current) await tx`UPDATE sales_statuses SET is_default = false WHERE id = ${current.id}`;
        const [row] = await tx`INSERT INTO sales_statuses ${tx({ ...fields, is_default: makeDefault })} RETURNING *`;
        await audit(tx, {
          actorId: who.actorId, action: 'sales_status.create', targetKind: 'sales_status', targetId: row.id,
          after: { ...snapshot(row), ...(makeDefault && current ? { previousDefault: current.status } : {}) }, ip: who.ip,
        });
        return { ok: true, toast: 'Sales status added successfully', id: Number(row.id) };
      }
      const [before] = await tx`SELECT * FROM sales_statuses WHERE id = ${input.id} FOR UPDATE`;
      if (!before) return notFound();
      if (before.is_default && !input.isDefault) {
        return refuse(409, 'One status is always the default: make another status the default instead', 'isDefault');
      }
      const switching = input.isDefault && !before.is_default;
      if (switching && current) await tx`UPDATE sales_statuses SET is_default = false WHERE id = ${current.id}`;
      const [after] = await tx`UPDATE sales_statuses SET ${tx({ ...fields, is_default: input.isDefault })} WHERE id = ${input.id} RETURNING *`;
      // leads hold the text: a renamed status is renamed on its leads (leads_status_idx)
      const renamed = before.status !== after.status
        ? (await tx`UPDATE leads SET lead_status = ${after.status}, updated_at = now() WHERE lead_status = ${before.status}`).count
        : 0;
      await audit(tx, {
        actorId: who.actorId, action: 'sales_status.update', targetKind: 'sales_status', targetId: input.id,
        before: snapshot(before),
        after: { ...snapshot(after), ...(renamed ? { leadsRenamed: renamed } : {}), ...(switching && current ? { previousDefault: current.status } : {}) },
        ip: who.ip,
      });
      return { ok: true, toast: 'Sales status updated successfully', id: input.id };
    });
  } catch (e) {
    if (pgCode(e) === '23505') return duplicate(); // a concurrent save of the same name won
    throw e;
  }
}

/**
 * Delete a status. The default cannot go (another must be made the default first). A status that
 * leads have needs `replacementId`: its leads move there in one UPDATE, then it is deleted, in one
 * transaction.
 */
export async function deleteSalesStatus(sql: Sql, id: number, replacementId: number | null, who: Actor): Promise<Outcome<{ moved: number }>> {
  return sql.begin(async (tx): Promise<Outcome<{ moved: number }>> => {
    await lockStatuses(tx);
    const [before] = await tx`SELECT * FROM sales_statuses WHERE id = ${id} FOR UPDATE`;
    if (!before) return notFound();
    if (before.is_default) return refuse(409, 'The default status cannot be deleted. Make another status the default first.');
    const [{ used }] = await tx`SELECT EXISTS (SELECT 1 FROM leads WHERE lead_status = ${before.status}) AS used`;
    let moved = 0;
    let replacement: string | null = null;
    if (used) {
      if (replacementId === null) return refuse(409, 'Leads have this status. Choose the status they move to.', 'replacementId');
      const [r] = replacementId === id ? [] : await tx`SELECT status FROM sales_statuses WHERE id = ${replacementId}`;
      if (!r) return refuse(409, 'Choose another status for its leads', 'replacementId');
      replacement = r.status as string;
      moved = (await tx`UPDATE leads SET lead_status = ${replacement}, updated_at = now() WHERE lead_status = ${before.status}`).count;
    }
    await tx`DELETE FROM sales_statuses WHERE id = ${id}`;
    await audit(tx, {
      actorId: who.actorId, action: 'sales_status.delete', targetKind: 'sales_status', targetId: id,
      before: snapshot(before), after: replacement ? { leadsMovedTo: replacement, leadsMoved: moved } : undefined, ip: who.ip,
    });
    return { ok: true, toast: 'Sales Status deleted successfully', moved };
  });
}

// ---------------------------------------------------------------- the route's loader and action

export async function salesStatusesLoader(sql: Sql, s: CurrentSession, params: URLSearchParams) {
  const [list, choices] = await Promise.all([listSalesStatuses(sql, listQuery(params, SALES_STATUS_SORTS)), salesStatusChoices(sql)]);
  return { ...list, choices };
}

export async function salesStatusesAction(sql: Sql, s: CurrentSession, form: FormData, ip: string | null) {
  const { intent, submission } = parseIntent(form, SALES_STATUS_ACTIONS, CRM_CONFIG_PARSE);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  const who = { actorId: s.user.id, ip: ip };
  const v = submission.value;
  const r = intent === 'delete'
    ? await deleteSalesStatus(sql, (v as { id: number }).id, (v as { replacementId: number | null }).replacementId, who)
    : await saveSalesStatus(sql, v as SalesStatusInput, who);
  return replyOutcome(submission, r, intent);
}
