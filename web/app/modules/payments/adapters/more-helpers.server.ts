// Small helpers shared by the adapters of more.server.ts (CoinPayments, Flutterwave, Perfect
// Money, MoonPay): constant-time comparison, exact decimal strings out of provider payloads, the
// key columns a provider needs. Nothing here talks to the network or the database.
import { timingSafeEqual } from 'node:crypto';
import { NotificationRefused, type GatewayConfig } from '../adapter.ts';

/** Constant-time string comparison (false on different lengths, never throws). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * An amount as an exact decimal string. Strings must already be plain decimals; JSON numbers are
 * written with their shortest round-trip form, which is the literal the provider sent for any
 * amount of up to 15 significant digits (e.g. 295.45 → "295.45"). Anything else is null.
 */
export function decimalString(v: unknown): string | null {
  if (typeof v === 'string') return DECIMAL.test(v.trim()) ? v.trim() : null;
  if (typeof v === 'number' && Number.isFinite(v)) {
    const s = String(v);
    return DECIMAL.test(s) ? s : null;
  }
  return null;
}

/** The deposit id we sent as the provider's reference ("dep-123"), or null. */
export function depositIdFrom(ref: unknown): number | null {
  if (typeof ref !== 'string' && typeof ref !== 'number') return null;
  const m = /^(?:dep-)?(\d{1,15})$/.exec(String(ref));
  if (!m) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export const depositRef = (depositId: number) => `dep-${depositId}`;

/** A key column the adapter cannot work without (creating payments, fetching status). */
export function requireKey(config: GatewayConfig, key: 'key1' | 'key2' | 'key3' | 'key4' | 'key5', what: string): string {
  const v = config[key];
  if (!v) throw new Error(`${config.name}: ${what} (${key}) is not configured`);
  return v;
}

/** The same, for notifications: refused as not_configured. */
export function notifyKey(config: GatewayConfig, key: 'key1' | 'key2' | 'key3' | 'key4' | 'key5', what: string): string {
  const v = config[key];
  if (!v) throw new NotificationRefused('not_configured', `${config.name}: ${what} (${key}) is not configured`);
  return v;
}

/** Parses a JSON body, refusing anything that is not an object. */
export function jsonObject(raw: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new NotificationRefused('malformed', 'the body is not JSON');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new NotificationRefused('malformed', 'the body is not a JSON object');
  return v as Record<string, unknown>;
}

export const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A provider answered something other than what its documentation describes. */
export class ProviderError extends Error {
  constructor(readonly provider: string, message: string) {
    super(`${provider}: ${message}`);
  }
}
