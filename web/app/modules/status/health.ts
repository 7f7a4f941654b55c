// The API status page's rows (docs/specs.md#settings-and-providers, Health Monitor): one per feed
// api, each 'N/A' / Checking until the engine's first heartbeat for it, then Connected or
// Disconnected with the heartbeat's message. Pure, shared with the browser.
export const HEALTH_APIS = ['polygonForex', 'polygonCrypto', 'eodStock', 'oandaRest'] as const;
export type HealthApi = (typeof HEALTH_APIS)[number];

export const HEALTH_LABELS: Record<HealthApi, string> = {
  polygonForex: 'Polygon (Forex)',
  polygonCrypto: 'Polygon (Crypto)',
  eodStock: 'EOD Historical Data (Stock)',
  oandaRest: 'Oanda Rest (Others)',
};

export type HealthStatus = 'checking' | 'connected' | 'disconnected';
export interface HealthRow { status: HealthStatus; msg: string; at: number | null }
export type HealthRows = Record<HealthApi, HealthRow>;

export const initialHealth = (): HealthRows =>
  Object.fromEntries(HEALTH_APIS.map((a) => [a, { status: 'checking', msg: 'N/A', at: null }])) as HealthRows;

const isApi = (v: unknown): v is HealthApi => typeof v === 'string' && (HEALTH_APIS as readonly string[]).includes(v);

/** A heartbeat { api, success, msg } applied to the rows; anything else leaves them as they are. */
export function applyHeartbeat(rows: HealthRows, data: unknown, now = Date.now()): HealthRows {
  const h = (data ?? {}) as { api?: unknown; success?: unknown; msg?: unknown };
  if (!isApi(h.api) || typeof h.success !== 'boolean') return rows;
  const msg = typeof h.msg === 'string' ? h.msg.slice(0, 300) : '';
  return { ...rows, [h.api]: { status: h.success ? 'connected' : 'disconnected', msg, at: now } };
}

export const STATUS_LABELS: Record<HealthStatus, string> = { checking: 'Checking', connected: 'Connected', disconnected: 'Disconnected' };

/** Heartbeats come every 10 s: a row with none for this long goes back to Checking. */
export const STALE_MS = 35_000;
export const STALE_MESSAGE = 'No heartbeat for a while';

/** Rows whose last heartbeat is older than STALE_MS back to Checking (the engine or its stream is gone). */
export function expireHealth(rows: HealthRows, now = Date.now(), staleMs = STALE_MS): HealthRows {
  let out: HealthRows | null = null;
  for (const api of HEALTH_APIS) {
    const r = rows[api];
    if (r.at !== null && r.status !== 'checking' && now - r.at > staleMs) {
      out ??= { ...rows };
      out[api] = { status: 'checking', msg: STALE_MESSAGE, at: r.at };
    }
  }
  return out ?? rows;
}
