// The payment gateways' settings (/admin/gateways, /admin/gateways/manual; docs/specs.md#payment-gateways):
// the cards, the save of one gateway (its keys, fee, active switch, QR code) and `gatewayConfig`,
// the decrypted settings the payment adapters (modules/payments) are given. Secrets are encrypted
// with SECRETS_KEY (engine/src/contract/secrets.ts) before they reach the table, and leave this
// module only masked ('••••abcd') or through gatewayConfig, which runs on the server only.
import { decryptSecret, encryptSecret, isMaskedSecret, maskSecret, secretsKey } from '@broker/engine/contract/secrets';
import type { Sql } from '~/shared/db.server.ts';
import { env } from '~/shared/env.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { parseForm } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { CATALOG_PARSE } from '~/modules/catalog/numbers.ts';
import { refuse, type Actor, type Outcome, replyRefusal, refusedWithout } from '~/shared/result.server.ts';
import { discardUploads, type StoredUpload } from '~/modules/uploads/uploads.server.ts';
import { uploadHref } from '~/modules/uploads/href.ts';
import type { GatewayConfig } from './kinds.ts';
import { holdsMockKeys, mockKeysAllowed, MOCK_KEYS_REFUSED, PUBLISHED_MOCK_KEYS } from '~/modules/gateways/mock-keys.ts';
import { numberReader } from '~/components/ui/number-input.ts';
import {
  GATEWAY_AVAILABILITY, GATEWAY_SPECS, KEY_COLUMNS, gatewaySchema, gatewayState, isGatewayKind, secretColumns,
  type GatewayCard, type GatewayInput, type GatewayKind, type KeyColumn,
} from './kinds.ts';

const key = () => secretsKey(env().SECRETS_KEY);

/** How a secret is shown: its last four characters at most, never more (contract/secrets.ts). */
export { maskSecret };

/** A stored secret in clear, or null when none is stored; a value SECRETS_KEY cannot open is an error. */
function reveal(stored: unknown): string | null {
  if (stored === null || stored === undefined || stored === '') return null;
  return decryptSecret(String(stored), key());
}

function maskStored(stored: unknown): string {
  try {
    return maskSecret(reveal(stored));
  } catch {
    return '••••'; // stored under another SECRETS_KEY: something is there, its end cannot be shown
  }
}

type Row = Record<string, unknown>;

/** A row holding the mocks' published credentials where they may not be used (mock-keys.ts). */
function mockKeyed(name: GatewayKind, r: Row): boolean {
  if (mockKeysAllowed()) return false;
  const keys: Partial<Record<KeyColumn, string | null>> = {};
  for (const k of KEY_COLUMNS) {
    try { keys[k] = reveal(r[k]); } catch { keys[k] = null; }
  }
  return holdsMockKeys(name, keys);
}

function cardOf(r: Row): GatewayCard {
  const name = r.name as GatewayKind;
  const spec = GATEWAY_SPECS[name];
  const values: GatewayCard['values'] = {};
  const masked: GatewayCard['masked'] = {};
  for (const f of spec.fields) {
    if (f.secret) masked[f.key] = maskStored(r[f.key]);
    else values[f.key] = (r[f.key] as string | null) ?? null;
  }
  return {
    name, title: String(r.title), manual: r.is_manual === true, state: gatewayState(name), fee: String(r.fee),
    // holding the mocks' published keys without MOCKS: treated as off (gatewayConfig)
    isActive: r.is_active === true && !mockKeyed(name, r), qr: spec.qr ? uploadHref(r.file_path as string | null) : null, values, masked,
  };
}

/** The cards of one page: the automatic gateways or the manual ones. */
export async function gatewayCards(sql: Sql, manual: boolean): Promise<GatewayCard[]> {
  const rows = await sql`SELECT name::text AS name, title, is_manual, key1, key2, key3, key4, key5, fee::text AS fee, is_active, file_path
                           FROM payment_gateways WHERE is_manual = ${manual} ORDER BY title, name`;
  return rows.map(cardOf);
}

/** What the audit trail keeps of a gateway: secrets masked. */
function snapshot(r: Row) {
  const name = r.name as GatewayKind;
  const secrets = new Set(secretColumns(name));
  const out: Record<string, unknown> = { fee: String(r.fee), is_active: r.is_active, file_path: r.file_path ?? null };
  for (const k of KEY_COLUMNS) out[k] = secrets.has(k) ? maskStored(r[k]) : (r[k] ?? null);
  return out;
}

/**
 * Saves one gateway: each key column of its kind (a secret only when a new value was typed, then
 * encrypted; any other field as typed, empty clears it), the fee and active switch where its kind
 * has them, the QR code when one was uploaded. Audited in the same transaction with before and after.
 */
export async function saveGateway(
  sql: Sql, input: GatewayInput, who: Actor, opts: { qrUploadId?: number | null; availability?: typeof GATEWAY_AVAILABILITY } = {},
): Promise<Outcome<{ title: string }>> {
  const kind = input.name;
  const spec = GATEWAY_SPECS[kind];
  if (input.isActive && gatewayState(kind, opts.availability) === 'unavailable') {
    return refuse(409, 'This gateway is not available in this version', 'isActive');
  }
  return sql.begin(async (tx): Promise<Outcome<{ title: string }>> => {
    const [before] = await tx`SELECT name::text AS name, title, is_manual, key1, key2, key3, key4, key5, fee::text AS fee, is_active, file_path
                                FROM payment_gateways WHERE name = ${kind}::text::gateway_kind FOR UPDATE`;
    if (!before) return refuse(404, 'Gateway not found');
    const set: Record<string, unknown> = {};
    for (const f of spec.fields) {
      const v = input[f.key] ?? null;
      if (f.secret) {
        // the masked form sent back unchanged keeps the stored secret
        if (v !== null && !isMaskedSecret(v)) set[f.key] = encryptSecret(v, key());
      } else set[f.key] = v;
    }
    if (spec.fee && input.fee !== undefined) set.fee = input.fee;
    if (spec.active && input.isActive !== undefined) set.is_active = input.isActive;
    if (spec.qr && opts.qrUploadId) set.file_path = `/uploads/${opts.qrUploadId}`;
    // the mocks' published keys never make a live gateway: the keys it will hold, typed or kept
    const activeAfter = (set.is_active ?? before.is_active) === true;
    if (activeAfter && !mockKeysAllowed()) {
      const keys: Partial<Record<KeyColumn, string | null>> = {};
      for (const f of spec.fields) {
        const typed = input[f.key];
        if (!f.secret || (typed !== undefined && typed !== null)) keys[f.key] = f.secret ? typed ?? null : ((set[f.key] as string | null) ?? null);
        else { try { keys[f.key] = reveal(before[f.key]); } catch { keys[f.key] = null; } }
      }
      if (holdsMockKeys(kind, keys)) return refuse(409, MOCK_KEYS_REFUSED, 'isActive');
    }
    const [after] = await tx`UPDATE payment_gateways SET ${tx(set)}, updated_at = now() WHERE name = ${kind}::text::gateway_kind
                               RETURNING name::text AS name, title, is_manual, key1, key2, key3, key4, key5, fee::text AS fee, is_active, file_path`;
    await audit(tx, { actorId: who.actorId, action: 'gateway.update', targetKind: 'gateway', targetId: kind, before: snapshot(before), after: snapshot(after), ip: who.ip });
    return { ok: true, toast: '{{name}} updated successfully', title: String(after.title) };
  });
}

/**
 * A gateway's saved settings for its adapter, secrets decrypted; null for a kind that has no row.
 * Server only: what it returns never goes to a browser.
 */
export async function gatewayConfig(sql: Sql, name: string): Promise<(GatewayConfig & { active: boolean }) | null> {
  if (!isGatewayKind(name)) return null;
  const [r] = await sql`SELECT name::text AS name, key1, key2, key3, key4, key5, fee::text AS fee, is_active
                          FROM payment_gateways WHERE name = ${name}::text::gateway_kind`;
  if (!r) return null;
  const secrets = new Set(secretColumns(name));
  let keys = {} as Record<KeyColumn, string | null>;
  for (const k of KEY_COLUMNS) keys[k] = secrets.has(k) ? reveal(r[k]) : ((r[k] as string | null) ?? null);
  const mock = PUBLISHED_MOCK_KEYS[name];
  if (env().MOCKS && mock && !keys.key1?.trim()) {
    // MOCKS=1: the mocks' keys for a gateway the admin left without keys, in memory only (never stored)
    keys = Object.fromEntries(KEY_COLUMNS.map((k) => [k, mock[k] ?? null])) as Record<KeyColumn, string | null>;
  } else if (!mockKeysAllowed() && holdsMockKeys(name, keys)) {
    // the mocks' published keys outside MOCKS: off, and no key of it is believed (anyone can sign with them)
    console.warn(`[gateways] ${name} holds the mocks' published keys: treated as switched off until its own keys are saved`);
    return { name, key1: null, key2: null, key3: null, key4: null, key5: null, fee: String(r.fee), active: false };
  }
  // active: a switched-off gateway still settles the payments it started
  return { name, ...keys, fee: String(r.fee), active: r.is_active === true };
}

// ---------------------------------------------------------------- the routes' loader and action
// (each route checks access and receives the form)

export async function gatewaysLoader(sql: Sql, manual: boolean) {
  return { manual, gateways: await gatewayCards(sql, manual) };
}

/**
 * POST (multipart: name, key1..key5, fee, isActive, file), checked and received by the route: saves the
 * gateway named, of this page. `qr` is the stored QR code file, if one came; a refusal discards it.
 */
export async function gatewaysAction(sql: Sql, manual: boolean, form: FormData, qr: StoredUpload | undefined, who: Actor, locale: string) {
  const drop = () => discardUploads(sql, who.actorId, qr ? [qr.id] : []);
  const name = String(form.get('name') ?? '');
  const [row] = isGatewayKind(name) ? await sql`SELECT is_manual FROM payment_gateways WHERE name = ${name}::text::gateway_kind` : [];
  if (!row || row.is_manual !== manual || !isGatewayKind(name)) {
    await drop();
    return refusedWithout(404, 'Gateway not found');
  }
  if (qr && !GATEWAY_SPECS[name].qr) {
    await drop();
    return refusedWithout(422, 'This gateway has no QR code', 'file');
  }
  const hideFields = secretColumns(name);
  const submission = parseForm(form, gatewaySchema(name), { ...CATALOG_PARSE, numbers: numberReader(locale) });
  if (submission.status !== 'success') {
    await drop();
    return replyRefused(submission, { hideFields });
  }
  const r = await saveGateway(sql, submission.value as GatewayInput, who, { qrUploadId: qr?.id ?? null });
  if (!r.ok) {
    await drop();
    return replyRefusal(submission, r, { hideFields });
  }
  return replyDone(submission, r.toast, { hideFields, values: { name: r.title } });
}
