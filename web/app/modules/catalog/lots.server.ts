// Lot settings (/admin/lots, docs/specs.md#trading-configuration): whether each market trades by 'lot' or by 'amount'
// (lot_settings, read by the order dialog through GET /dashboard/lot-state/{category} and by the
// engine's place context), and the lot selector's sizes (lot_selector: label and units, in the
// order given). One transaction writes both, and its audit row; the lot-state statement NOTIFYs
// the engine (engine_cache 'settings'). A market without a row trades by amount.
import type { Category } from '@broker/engine/domain';
import type { Db, Sql } from '~/shared/db.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { parseForm } from '~/shared/forms.ts';
import { plainDecimal } from '~/components/ui/format.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { CATALOG_PARSE } from '~/modules/catalog/numbers.ts';
import { replyOutcome, type Actor, type Outcome } from '~/shared/result.server.ts';
import { LotsSchema, SPREAD_MARKETS, type LotsInput } from './schemas.ts';
import { numberReader } from '~/components/ui/number-input.ts';

export type LotState = 'lot' | 'amount';
export interface LotSettings { states: Record<Category, LotState>; selector: { label: string; value: string }[] }

export async function readLots(sql: Db, lock = false): Promise<LotSettings> {
  const [states, selector] = [
    await sql`SELECT category, state FROM lot_settings ${lock ? sql`FOR UPDATE` : sql``}`,
    await sql`SELECT label, value::text AS value FROM lot_selector ORDER BY position, value ${lock ? sql`FOR UPDATE` : sql``}`,
  ];
  const out = Object.fromEntries(SPREAD_MARKETS.map((m) => [m, 'amount'])) as Record<Category, LotState>;
  for (const r of states) out[r.category as Category] = r.state;
  return { states: out, selector: selector.map((r) => ({ label: r.label as string, value: plainDecimal(r.value) })) };
}

export async function saveLots(sql: Sql, input: LotsInput, who: Actor): Promise<Outcome> {
  return sql.begin(async (tx): Promise<Outcome> => {
    // one save at a time (the selector is replaced whole): a transaction-scoped lock
    await tx`SELECT pg_advisory_xact_lock(hashtext('broker.lot-settings'))`;
    const before = await readLots(tx, true);
    const states = Object.fromEntries(SPREAD_MARKETS.map((m) => [m, input[`lot_${m}` as keyof LotsInput]])) as Record<Category, LotState>;
    await tx`
      INSERT INTO lot_settings (category, state)
      SELECT v.category::instrument_category, v.state::lot_state FROM (VALUES ${tx(SPREAD_MARKETS.map((m) => [m, states[m]]))}) AS v(category, state)
      ON CONFLICT (category) DO UPDATE SET state = excluded.state`;
    await tx`DELETE FROM lot_selector`;
    if (input.selector.length) {
      await tx`INSERT INTO lot_selector ${tx(input.selector.map((r, position) => ({ label: r.label, value: r.value, position })))}`;
    }
    await audit(tx, { actorId: who.actorId, action: 'lots.update', targetKind: 'lots', before, after: { states, selector: input.selector }, ip: who.ip });
    return { ok: true, toast: 'Lots updated successfully' };
  });
}

/** /admin/lots's action: the route checked access and read the form. */
export async function lotsAction(sql: Sql, form: FormData, who: Actor, locale: string) {
  const submission = parseForm(form, LotsSchema, { ...CATALOG_PARSE, numbers: numberReader(locale) });
  // a list intent (add or remove a row) without JavaScript: the form comes back with it applied
  if (submission.status === undefined) return replyRefused(submission, { status: 200, toast: null });
  if (submission.status !== 'success') return replyRefused(submission);
  return replyOutcome(submission, await saveLots(sql, submission.value, who));
}
