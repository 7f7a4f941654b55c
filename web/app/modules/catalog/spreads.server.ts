// Spread settings (/admin/spreads, docs/specs.md#trading-configuration): one value per market, the multiplier of the spread
// cost (ask − bid) × spread × amount (docs/specs.md#trading-formulas). Saved in one statement (one
// engine_cache 'settings' notification: the engine drops its cached place contexts) with the audit
// row in the same transaction. A market without a row trades with 0.
import type { Category } from '@broker/engine/domain';
import type { Db, Sql } from '~/shared/db.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { invalidateCached } from '~/shared/live-cache.server.ts';
import { parseForm } from '~/shared/forms.ts';
import { plainDecimal } from '~/components/ui/format.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { CATALOG_PARSE } from '~/modules/catalog/numbers.ts';
import { replyOutcome, type Actor, type Outcome } from '~/shared/result.server.ts';
import { SPREAD_MARKETS, SpreadsSchema, type SpreadsInput } from './schemas.ts';
import { numberReader } from '~/components/ui/number-input.ts';

export type Spreads = Record<Category, string>;

/** The five spreads as plain decimals ('1', '0.5'); a missing row reads '0'. */
export async function readSpreads(sql: Db, lock = false): Promise<Spreads> {
  const rows = await sql`SELECT category, value::text AS value FROM spreads ${lock ? sql`FOR UPDATE` : sql``}`;
  const out = Object.fromEntries(SPREAD_MARKETS.map((m) => [m, '0'])) as Spreads;
  for (const r of rows) out[r.category as Category] = plainDecimal(r.value);
  return out;
}

export async function saveSpreads(sql: Sql, input: SpreadsInput, who: Actor): Promise<Outcome> {
  const out = await sql.begin(async (tx): Promise<Outcome> => {
    const before = await readSpreads(tx, true);
    const after = Object.fromEntries(SPREAD_MARKETS.map((m) => [m, input[`spread_${m}` as keyof SpreadsInput]])) as Spreads;
    await tx`
      INSERT INTO spreads (category, value)
      SELECT v.category::instrument_category, v.value::numeric FROM (VALUES ${tx(SPREAD_MARKETS.map((m) => [m, after[m]]))}) AS v(category, value)
      ON CONFLICT (category) DO UPDATE SET value = excluded.value`;
    await audit(tx, { actorId: who.actorId, action: 'spreads.update', targetKind: 'spreads', before, after, ip: who.ip });
    return { ok: true, toast: 'Spreads updated successfully' };
  });
  // this process's copy (the dashboards') at once; the trigger's NOTIFY drops every process's (live-cache)
  if (out.ok) invalidateCached(sql, 'spreads');
  return out;
}

/** /admin/spreads's action: the route checked access and read the form. */
export async function spreadsAction(sql: Sql, form: FormData, who: Actor, locale: string) {
  const submission = parseForm(form, SpreadsSchema, { ...CATALOG_PARSE, numbers: numberReader(locale) });
  if (submission.status !== 'success') return replyRefused(submission);
  return replyOutcome(submission, await saveSpreads(sql, submission.value, who));
}
