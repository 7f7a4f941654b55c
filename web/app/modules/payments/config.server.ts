// A gateway's saved settings for the adapters. The gateway settings module (modules/gateways, a
// parallel piece of issue 13) owns payment_gateways and will export gatewayConfig(sql, name) with
// the secrets decrypted; until it lands this one small reader, with the same signature, is the
// only place the payments module reads the table: the integrator swaps the import.
//
// Keys per gateway (admin.md §3): stripe key1 = secret key, key2 = webhook signing secret;
// paypal key1 = client id, key2 = secret, key3 = mode ('live' | 'sandbox'), key4 = webhook id
// (PayPal's verify-webhook-signature API needs it: the one field added to the spec's form).
import { decryptSecret, secretsKey } from '@broker/engine/contract/secrets';
import type { Sql } from '~/utils/db.server.ts';
import { env } from '~/utils/env.server.ts';
import type { GatewayConfig } from './adapter.ts';

export interface GatewayConfigRow extends GatewayConfig { active: boolean }

/** The gateway's settings whether or not it is active (a switched-off gateway still settles its pending payments), or null. */
export async function gatewayConfig(sql: Sql, name: string): Promise<GatewayConfigRow | null> {
  if (!/^[a-z]{2,20}$/.test(name)) return null;
  const [g] = await sql`SELECT name::text AS name, key1, key2, key3, key4, key5, fee::text AS fee, is_active
                          FROM payment_gateways WHERE name::text = ${name}`;
  if (!g) return null;
  const key = secretsKey(env().SECRETS_KEY);
  // a value saved encrypted (enc:v1:…, the settings module) is decrypted; a plain one is used as it is
  const open = (v: string | null) => {
    if (v == null) return null;
    try { return decryptSecret(v, key); } catch {
      console.error(`[payments] a ${name} key cannot be decrypted with SECRETS_KEY`);
      return null;
    }
  };
  return { name: g.name, key1: open(g.key1), key2: open(g.key2), key3: open(g.key3), key4: open(g.key4), key5: open(g.key5), fee: g.fee, active: g.is_active === true };
}
