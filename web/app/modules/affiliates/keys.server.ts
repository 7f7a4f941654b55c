// Affiliate API keys (docs/specs.md#affiliates-and-the-leads-api): a key is
// 'ak_' + 32 random bytes (base64url); only its sha-256 is stored, with a short visible prefix. A new
// key replaces the old one at once (revoked in the same transaction). The leads webhook key of the
// site settings (docs/specs.md#settings-and-providers) authenticates the broker's own landing pages.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { decryptSecret, secretsKey } from '@broker/engine/contract/secrets';
import type { Sql } from '~/shared/db.server.ts';
import { env } from '~/shared/env.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { getSetting } from '~/shared/settings.server.ts';
import { ROLE } from '~/shared/roles.ts';

export const KEY_PREFIX_LENGTH = 10;
export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export interface KeyView { prefix: string; createdAt: string }

/** The affiliate's live key: its prefix and creation time (the key itself is never kept). */
export async function currentKey(sql: Sql, userId: number): Promise<KeyView | null> {
  const [k] = await sql`SELECT key_prefix, created_at FROM affiliate_api_keys WHERE user_id = ${userId} AND revoked_at IS NULL`;
  return k ? { prefix: k.key_prefix, createdAt: (k.created_at as Date).toISOString() } : null;
}

/** Generate: revokes the live key and stores the new one's hash; answers the full key (shown once). */
export async function generateKey(sql: Sql, userId: number, ip: string | null): Promise<{ key: string; prefix: string }> {
  const key = `ak_${randomBytes(32).toString('base64url')}`;
  const prefix = key.slice(0, KEY_PREFIX_LENGTH);
  await sql.begin(async (t) => {
    // one generation at a time per affiliate (the one-live-key index would refuse the second)
    await t`SELECT pg_advisory_xact_lock(hashtext('affiliate-key'), ${userId}::int)`;
    const old = await t`UPDATE affiliate_api_keys SET revoked_at = now() WHERE user_id = ${userId} AND revoked_at IS NULL RETURNING id, key_prefix`;
    const [row] = await t`INSERT INTO affiliate_api_keys (user_id, key_hash, key_prefix) VALUES (${userId}, ${sha256(key)}, ${prefix}) RETURNING id`;
    await audit(t, {
      actorId: userId, action: 'affiliate.api_key', targetKind: 'affiliate_api_key', targetId: Number(row.id), ip,
      before: old.length ? { id: Number(old[0].id), prefix: old[0].key_prefix } : null, after: { id: Number(row.id), prefix },
    });
  });
  return { key, prefix };
}

export type KeyOwner = { kind: 'affiliate'; userId: number; keyId: number } | { kind: 'broker' };

/** The key sent in `Authorization: Bearer <key>` or `X-API-Key` (never a cookie). */
export function keyFromRequest(request: Request): string | null {
  const auth = request.headers.get('authorization');
  const m = auth ? /^Bearer\s+(\S{1,200})$/i.exec(auth.trim()) : null;
  const k = m?.[1] ?? request.headers.get('x-api-key')?.trim() ?? '';
  return k && k.length <= 200 ? k : null;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(sha256(a), 'hex');
  const y = Buffer.from(sha256(b), 'hex');
  return timingSafeEqual(x, y);
}

/** Who a key belongs to: a live key of an active affiliate, or the broker's leads webhook key; else null. */
export async function authenticateKey(sql: Sql, key: string | null): Promise<KeyOwner | null> {
  if (!key) return null;
  if (key.startsWith('ak_')) {
    const [k] = await sql`
      SELECT k.id, k.user_id FROM affiliate_api_keys k JOIN users u ON u.id = k.user_id
       WHERE k.key_hash = ${sha256(key)} AND k.revoked_at IS NULL AND u.role_id = ${ROLE.affiliate} AND u.is_active AND u.deleted_at IS NULL`;
    if (k) return { kind: 'affiliate', userId: Number(k.user_id), keyId: Number(k.id) };
  }
  const stored = (await getSetting(sql, 'webhookApiKeyLeads')).key;
  if (!stored) return null;
  let plain: string;
  try { plain = decryptSecret(stored, secretsKey(env().SECRETS_KEY)); } catch { return null; }
  return plain && sameSecret(plain, key) ? { kind: 'broker' } : null;
}
