// The back-office pricing plans (/admin/pricing, docs/specs.md#trading-configuration):
// the server-paged table, create, 'Edit Plan' and delete. A plan that customers are on cannot be
// deleted. Every change is audited in its transaction. A change of a plan's leverage or stop-out
// values NOTIFYs the engine (pricing_plans_engine_cache: refreshStopouts moves the stop-out of the
// open positions concerned; the next order's context is read again with the new leverage).
import type { Category } from '@broker/engine/domain';
import type { Sql } from '~/shared/db.server.ts';
import { mayEdit } from '~/modules/auth/permissions.ts';
import { audit } from '~/shared/audit.server.ts';
import { listQuery, type ListQuery } from '~/components/ui/list-params.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { pgCode, refuse, replyOutcome, type Actor, type Outcome } from '~/shared/result.server.ts';
import { CATALOG_PARSE } from '~/modules/catalog/numbers.ts';
import { PLAN_ACTIONS, PLAN_MARKETS, type PlanInput } from './schemas.ts';
import { numberReader } from '~/components/ui/number-input.ts';

/** URL sort id → column. */
const SORTS = {
  id: 'id', name: 'name', price: 'price',
  forexLeverage: 'forex_leverage', commodityLeverage: 'commodity_leverage', stockLeverage: 'stock_leverage',
  indexLeverage: 'index_leverage', cryptoLeverage: 'crypto_leverage',
} as const;
export const PLAN_SORTS = Object.keys(SORTS) as (keyof typeof SORTS)[];

export interface PlanAdminRow {
  id: number; name: string; description: string; price: string; currency: string;
  leverage: Record<Category, number | null>;
  stopout: Record<Category, string | null>;
}

const like = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function planRow(r: Record<string, unknown>): PlanAdminRow {
  const leverage = {} as PlanAdminRow['leverage'];
  const stopout = {} as PlanAdminRow['stopout'];
  for (const m of PLAN_MARKETS) {
    leverage[m] = r[`${m}_leverage`] === null ? null : Number(r[`${m}_leverage`]);
    stopout[m] = (r[`${m}_stopout`] as string | null) ?? null;
  }
  return {
    id: Number(r.id), name: String(r.name), description: String(r.description ?? ''), price: String(r.price),
    currency: String(r.price_currency).trim(), leverage, stopout,
  };
}

export async function listPlans(sql: Sql, q: Pick<ListQuery, 'limit' | 'offset' | 'sort' | 'dir' | 'search'>) {
  const term = q.search.trim();
  const where = term ? sql`WHERE name ILIKE ${like(term)}` : sql``;
  const column = SORTS[(q.sort in SORTS ? q.sort : 'id') as keyof typeof SORTS];
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  const [rows, [count]] = await Promise.all([
    sql`SELECT * FROM pricing_plans ${where} ORDER BY ${sql(column)} ${dir} NULLS LAST, id ${dir} LIMIT ${q.limit} OFFSET ${q.offset}`,
    sql`SELECT count(*)::int AS n FROM pricing_plans ${where}`,
  ]);
  return { total: count.n as number, rows: rows.map(planRow) };
}

/** The columns of a plan as the form gives them. */
function columnsOf(p: PlanInput) {
  return {
    name: p.name, description: p.description, price: p.price,
    forex_leverage: p.forexLeverage, commodity_leverage: p.commodityLeverage, stock_leverage: p.stockLeverage,
    index_leverage: p.indexLeverage, crypto_leverage: p.cryptoLeverage,
    forex_stopout: p.forexStopout, commodity_stopout: p.commodityStopout, stock_stopout: p.stockStopout,
    index_stopout: p.indexStopout, crypto_stopout: p.cryptoStopout,
  };
}

/** What the audit trail keeps of a plan. */
function snapshot(r: Record<string, unknown>) {
  const out: Record<string, unknown> = { name: r.name, description: r.description, price: r.price, currency: String(r.price_currency).trim() };
  for (const m of PLAN_MARKETS) { out[`${m}_leverage`] = r[`${m}_leverage`]; out[`${m}_stopout`] = r[`${m}_stopout`]; }
  return out;
}

const duplicate = () => refuse(409, 'A plan with this name already exists', 'name');
const notFound = () => refuse(404, 'Plan not found');

export async function savePlan(sql: Sql, input: PlanInput, who: Actor): Promise<Outcome<{ id: number }>> {
  try {
    return await sql.begin(async (tx): Promise<Outcome<{ id: number }>> => {
      const [clash] = await tx`SELECT id FROM pricing_plans WHERE lower(name) = lower(${input.name}) AND id IS DISTINCT FROM ${input.id ?? null}::bigint`;
      if (clash) return duplicate();
      if (input.id === undefined) {
        const [row] = await tx`INSERT INTO pricing_plans ${tx(columnsOf(input))} RETURNING *`;
        await audit(tx, { actorId: who.actorId, action: 'plan.create', targetKind: 'plan', targetId: row.id, after: snapshot(row), ip: who.ip });
        return { ok: true, toast: 'Plan added successfully', id: Number(row.id) };
      }
      const [before] = await tx`SELECT * FROM pricing_plans WHERE id = ${input.id} FOR UPDATE`;
      if (!before) return notFound();
      const [after] = await tx`UPDATE pricing_plans SET ${tx(columnsOf(input))}, updated_at = now() WHERE id = ${input.id} RETURNING *`;
      await audit(tx, { actorId: who.actorId, action: 'plan.update', targetKind: 'plan', targetId: input.id, before: snapshot(before), after: snapshot(after), ip: who.ip });
      return { ok: true, toast: 'Plan updated successfully', id: input.id };
    });
  } catch (e) {
    if (pgCode(e) === '23505') return duplicate(); // a concurrent save of the same name won
    throw e;
  }
}

/** Delete a plan nobody is on. */
export async function deletePlan(sql: Sql, id: number, who: Actor): Promise<Outcome> {
  return sql.begin(async (tx): Promise<Outcome> => {
    // the row lock makes a concurrent subscription (users.pricing_plan_id's key share) wait, then fail
    const [before] = await tx`SELECT * FROM pricing_plans WHERE id = ${id} FOR UPDATE`;
    if (!before) return notFound();
    const [used] = await tx`SELECT count(*)::int AS n FROM users WHERE pricing_plan_id = ${id} AND deleted_at IS NULL`;
    if (used.n > 0) return refuse(409, 'Customers on this plan: {{count}}. Move them to another plan before deleting it.', undefined, { count: used.n });
    await tx`DELETE FROM pricing_plans WHERE id = ${id}`;
    await audit(tx, { actorId: who.actorId, action: 'plan.delete', targetKind: 'plan', targetId: id, before: snapshot(before), ip: who.ip });
    return { ok: true, toast: 'Plan deleted successfully' };
  });
}

// ---------------------------------------------------------------- the route's loader and action
// (the route checks access and reads the URL and the form)

/** The list; managers read it, only the roles of EDIT_ROLES add, edit and delete (`canEdit`). */
export async function plansLoader(sql: Sql, search: URLSearchParams, roleId: number) {
  return { ...await listPlans(sql, listQuery(search, PLAN_SORTS)), canEdit: mayEdit('/admin/pricing', roleId) };
}

export async function plansAction(sql: Sql, form: FormData, who: Actor, locale: string, roleId: number) {
  const { intent, submission } = parseIntent(form, PLAN_ACTIONS, { ...CATALOG_PARSE, numbers: numberReader(locale) });
  if (!mayEdit('/admin/pricing', roleId)) return replyRefused(submission, { intent, status: 403, toast: 'Only an admin can change pricing plans' });
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  const v = submission.value;
  const r = intent === 'delete' ? await deletePlan(sql, (v as { id: number }).id, who) : await savePlan(sql, v as PlanInput, who);
  return replyOutcome(submission, r, intent);
}
