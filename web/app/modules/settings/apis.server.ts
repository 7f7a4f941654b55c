// Data-provider settings (/admin/apis): reads the api_settings rows for the cards and saves one
// card with its audit row (secrets masked) in one transaction. The row's trigger NOTIFYs
// engine_cache { kind: 'provider' } and the engine restarts that provider's adapter with the new
// key (engine/src/feed/providers/manager.ts), without a restart.
import { decryptSecret, encryptSecret, isMaskedSecret, maskSecret, secretsKey } from '@broker/engine/contract/secrets';
import type { Sql } from '~/shared/db.server.ts';
import { refuse, type Result } from '~/shared/result.server.ts';
import { env } from '~/shared/env.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { API_FIELDS, API_KEYS, type ApiCardView, type ApiInput, type ApiKey } from './apis.ts';

type Row = { key: ApiKey; value1: string | null; value2: string | null; value3: string | null; value4: string | null; value5: string | null };
const VALUES = ['value1', 'value2', 'value3', 'value4', 'value5'] as const;

const key = () => secretsKey(env().SECRETS_KEY);
function reveal(stored: string | null): string {
  if (!stored) return '';
  try { return decryptSecret(stored, key()); } catch { return ''; }
}
const mask = (stored: string | null) => (stored ? maskSecret(reveal(stored)) || '••••' : '');

/** Non-negative integer from a stored figure, or null. */
const count = (v: string | null) => (v !== null && /^\d+$/.test(v.trim()) ? Number(v) : null);

export async function readApiCards(sql: Sql): Promise<ApiCardView[]> {
  const rows = await sql<Row[]>`SELECT key::text AS key, value1, value2, value3, value4, value5 FROM api_settings`;
  const by = new Map(rows.map((r) => [r.key, r]));
  return API_KEYS.map((k) => {
    const r = by.get(k);
    const card: ApiCardView = { key: k, values: {}, secrets: {} };
    for (const f of API_FIELDS[k]) {
      const v = r?.[f.name] ?? null;
      if (f.secret) card.secrets[f.name] = { set: !!v, masked: mask(v) };
      else card.values[f.name] = v ?? '';
    }
    if (k === 'oandaAPI') card.practice = (r?.value3 ?? 'fxpractice') !== 'fxtrade';
    if (k === 'currencyAPI') {
      const remaining = count(r?.value2 ?? null), total = count(r?.value3 ?? null);
      card.quota = remaining !== null && total !== null && total > 0 ? { used: Math.max(0, total - remaining), total, remaining } : null;
    }
    return card;
  });
}


/** The audit's copy of a row: the secret fields masked. */
function auditRow(k: ApiKey, r: Partial<Row> | undefined) {
  if (!r) return null;
  const out: Record<string, string | null> = {};
  for (const v of VALUES) out[v] = r[v] ?? null;
  for (const f of API_FIELDS[k]) if (f.secret) out[f.name] = r[f.name] ? mask(r[f.name] ?? null) : null;
  return out;
}

export async function saveApiCard(sql: Sql, input: ApiInput, who: { actorId: number; ip: string | null }): Promise<Result> {
  const k = input.intent;
  return sql.begin(async (tx): Promise<Result> => {
    const [before] = await tx<Row[]>`SELECT key::text AS key, value1, value2, value3, value4, value5 FROM api_settings WHERE key = ${k} FOR UPDATE`;
    const next: Record<(typeof VALUES)[number], string | null> = {
      value1: before?.value1 ?? null, value2: before?.value2 ?? null, value3: before?.value3 ?? null, value4: before?.value4 ?? null, value5: before?.value5 ?? null,
    };
    const clear = input.clear === 'on';
    for (const f of API_FIELDS[k]) {
      const typed = input[f.name];
      if (f.secret) {
        // the masked form sent back unchanged keeps the stored secret
        if (typed && !isMaskedSecret(typed)) next[f.name] = encryptSecret(typed, key());
        else if (clear) next[f.name] = null;
        // a required key: typed now or stored before (and not being removed)
        if (f.required && !next[f.name] && !clear) return refuse(400, 'required', f.name);
      } else {
        next[f.name] = typed || null;
        if (f.required && !typed && !clear) return refuse(400, 'required', f.name);
      }
    }
    if (k === 'oandaAPI') next.value3 = 'practice' in input && input.practice === 'on' ? 'fxpractice' : 'fxtrade';
    const changed = VALUES.some((v) => (before?.[v] ?? null) !== next[v]);
    if (!changed) return { ok: true };
    await tx`
      INSERT INTO api_settings (key, value1, value2, value3, value4, value5, updated_at, updated_by)
      VALUES (${k}, ${next.value1}, ${next.value2}, ${next.value3}, ${next.value4}, ${next.value5}, now(), ${who.actorId})
      ON CONFLICT (key) DO UPDATE SET value1 = EXCLUDED.value1, value2 = EXCLUDED.value2, value3 = EXCLUDED.value3,
        value4 = EXCLUDED.value4, value5 = EXCLUDED.value5, updated_at = now(), updated_by = EXCLUDED.updated_by`;
    await audit(tx, {
      actorId: who.actorId, action: 'apis.update', targetKind: 'api_settings', targetId: k,
      before: auditRow(k, before), after: auditRow(k, { ...next, key: k }), ip: who.ip,
    });
    return { ok: true };
  });
}
