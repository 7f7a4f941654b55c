// The backfill of leads.phone_e164 (issue 15): every lead's key recomputed by the app's one phone rule
// (contact.server.ts), so leads written before it (national numbers typed by staff, sign-ups, the old
// trigger's regex keys) and rows a raw SQL writer (a seed, psql) left without a key are found as
// duplicates by the API and the CSV import.
//
// Keyset batches by id: one transaction per batch reads BATCH leads after lead_phone_backfill.last_id,
// writes only the keys that differ (guarded on the phone and country it read, so a staff edit that
// committed meanwhile is never overwritten), and moves the mark. A batch holds its row locks for the
// length of one UPDATE, never the table; the mark row is taken with SKIP LOCKED, so several web
// processes never run a batch twice and a dead one loses at most its batch. Rerunning is safe: an
// unchanged key is not written. The web processes run it in the background (after boot, then every
// minute for the rows inserted since: the mark only moves forward); `npm run leads:phones` runs it
// to the end, `--restart` from id 0 (after a libphonenumber-js update, say).
import { setImmediate as yieldLoop } from 'node:timers/promises';
import type { Sql } from '~/shared/db.server.ts';
// relative: seeds/demo.ts and scripts/leads-phones.ts load this file without the web app's path alias
import { leadPhoneE164 } from '../../shared/contact.server.ts';

export const BATCH = 5_000;
const NAME = 'phone_e164';
/** Phones parsed between two yields of the event loop (a web process keeps answering). */
const SLICE = 250;

export interface StepResult { checked: number; changed: number; lastId: number }

/** One batch after the mark: null when another process holds the mark (its batch is running). */
export async function backfillStep(sql: Sql, opts: { batch?: number } = {}): Promise<StepResult | null> {
  return sql.begin(async (t) => {
    const [mark] = await t`SELECT last_id FROM lead_phone_backfill WHERE name = ${NAME} FOR UPDATE SKIP LOCKED`;
    if (!mark) return null;
    const after = Number(mark.last_id);
    const rows = await t`SELECT id, phone, country, phone_e164 FROM leads WHERE id > ${after} ORDER BY id LIMIT ${opts.batch ?? BATCH}`;
    if (!rows.length) return { checked: 0, changed: 0, lastId: after };
    const ids: string[] = [], keys: (string | null)[] = [], phones: string[] = [], countries: string[] = [];
    for (let i = 0; i < rows.length; i++) {
      if (i > 0 && i % SLICE === 0) await yieldLoop();
      const r = rows[i];
      const key = leadPhoneE164(r.phone, r.country);
      if (key === r.phone_e164) continue;
      ids.push(String(r.id)); keys.push(key); phones.push(r.phone); countries.push(r.country);
    }
    let changed = 0;
    if (ids.length) {
      // a background fix, not an edit: updated_at stays
      const res = await t`
        UPDATE leads l SET phone_e164 = u.k
          FROM unnest(${ids}::bigint[], ${keys as string[]}::text[], ${phones}::text[], ${countries}::text[]) AS u(id, k, p, c)
         WHERE l.id = u.id AND l.phone = u.p AND l.country = u.c AND l.phone_e164 IS DISTINCT FROM u.k`;
      changed = res.count;
    }
    const lastId = Number(rows[rows.length - 1].id);
    await t`UPDATE lead_phone_backfill SET last_id = ${lastId}, checked = checked + ${rows.length}, changed = changed + ${changed},
                                           updated_at = now() WHERE name = ${NAME}`;
    return { checked: rows.length, changed, lastId };
  });
}

/** Starts the next run from the first lead again. */
export async function restartBackfill(sql: Sql): Promise<void> {
  await sql`UPDATE lead_phone_backfill SET last_id = 0, checked = 0, changed = 0, started_at = now(), updated_at = now() WHERE name = ${NAME}`;
}

/**
 * Batches until the mark reaches the last lead. With `wait`, a mark held by another process is waited
 * for (the script); without, this run stops there (the other process is on it).
 */
export async function backfillLeadPhones(sql: Sql, opts: { batch?: number; wait?: boolean; onBatch?: (r: StepResult) => void } = {}):
  Promise<{ checked: number; changed: number; busy: boolean }> {
  let checked = 0, changed = 0;
  for (;;) {
    const r = await backfillStep(sql, opts);
    if (r === null) {
      if (!opts.wait) return { checked, changed, busy: true };
      await new Promise((res) => setTimeout(res, 500));
      continue;
    }
    if (r.checked === 0) return { checked, changed, busy: false };
    checked += r.checked; changed += r.changed;
    opts.onBatch?.(r);
  }
}

let timer: ReturnType<typeof setInterval> | null = null;
let running = false;

/** Called once at boot (import-boot.server.ts): catches up now, then every `everyMs` for the newer rows. */
export function startPhoneBackfillJob(sql: Sql, everyMs = 60_000): void {
  if (timer) return;
  const tick = () => {
    if (running) return;
    running = true;
    backfillLeadPhones(sql)
      .then((r) => { if (r.changed) console.log(`[lead-phones] ${r.changed} of ${r.checked} leads given their E.164 phone`); })
      .catch((e) => console.error('[lead-phones] backfill failed', e))
      .finally(() => { running = false; });
  };
  timer = setInterval(tick, everyMs);
  timer.unref?.();
  tick();
}
