// currencyapi.com v3 client: conversion rates for currencies the live FX quotes cannot convert
// (no direct, inverse or USD-crossed pair in the book), and the quota figures for the API status
// page (docs/specs.md#settings-and-providers: "remaining quota as used/total").
//
//   GET https://api.currencyapi.com/v3/latest?base_currency=USD&currencies=EUR,GBP   header  apikey: <key>
//   → {"meta":{"last_updated_at":"2023-06-23T10:15:59Z"},"data":{"EUR":{"code":"EUR","value":0.9187},…}}
//   GET https://api.currencyapi.com/v3/status                                       (free of quota)
//   → {"account_id":…, "quotas":{"month":{"total":300,"used":71,"remaining":229},"grace":{…}}}
// Errors: 401 bad key, 422 validation, 429 quota or rate limit exceeded, as {"message": "..."}.
// Every response also carries X-RateLimit-Limit-Quota-Month / X-RateLimit-Remaining-Quota-Month.
//
// The free plan has a few hundred requests a month, so rates are refreshed rarely (default every
// 6 hours, ~120 requests a month) and read from the cache; the status endpoint is free and is
// polled more often.
import { Decimal, dec } from '../../domain/money.ts';
import { errorMessage } from './common.ts';

export const CURRENCY_API_URL = 'https://api.currencyapi.com';

export interface CurrencyQuota { total: number; used: number; remaining: number; checkedAt: number }

export interface CurrencyApiOptions {
  apiKey: string;
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Base of the cached table. Default USD. */
  base?: string;
  /** Currencies to fetch; all when omitted. */
  currencies?: string[];
  /** Rates refresh period (ms). Default 6 h. 0 disables the timer. */
  refreshMs?: number;
  /** Quota check period (ms). Default 15 min. 0 disables the timer. */
  statusMs?: number;
  now?: () => number;
}

export interface CurrencyApiStatus {
  ok: boolean;
  message: string;
  base: string;
  currencies: number;
  updatedAt: number | null;
  quota: CurrencyQuota | null;
}

export class CurrencyApiError extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

export class CurrencyApi {
  private rates = new Map<string, Decimal>();
  private updatedAt: number | null = null;
  private q: CurrencyQuota | null = null;
  private lastError: string | null = null;
  private timers: ReturnType<typeof setInterval>[] = [];
  private onQuota: ((q: CurrencyQuota) => void) | null = null;
  private now: () => number;
  readonly base: string;

  constructor(private o: CurrencyApiOptions) {
    this.base = (o.base ?? 'USD').toUpperCase();
    this.now = o.now ?? Date.now;
  }

  private async get(path: string, params: Record<string, string> = {}, signal?: AbortSignal): Promise<any> {
    const f = this.o.fetch ?? fetch;
    const q = new URLSearchParams(params).toString().replace(/%2C/g, ',');
    const url = `${(this.o.baseUrl ?? CURRENCY_API_URL).replace(/\/$/, '')}${path}${q ? `?${q}` : ''}`;
    const res = await f(url, { headers: { apikey: this.o.apiKey, accept: 'application/json' }, signal });
    this.quotaFromHeaders(res.headers);
    let body: any = null;
    try { body = await res.json(); } catch { /* not JSON */ }
    if (!res.ok) {
      const msg = body && typeof body.message === 'string' ? body.message : res.statusText || 'request failed';
      throw new CurrencyApiError(res.status, `HTTP ${res.status}: ${msg}`);
    }
    if (!body || typeof body !== 'object') throw new CurrencyApiError(res.status, 'unreadable body');
    return body;
  }

  private quotaFromHeaders(h: Headers) {
    const total = Number(h.get('x-ratelimit-limit-quota-month'));
    const remaining = Number(h.get('x-ratelimit-remaining-quota-month'));
    if (h.get('x-ratelimit-limit-quota-month') !== null && h.get('x-ratelimit-remaining-quota-month') !== null
      && Number.isFinite(total) && Number.isFinite(remaining) && total >= 0 && remaining >= 0) {
      this.setQuota({ total, remaining, used: Math.max(0, total - remaining), checkedAt: this.now() });
    }
  }

  private setQuota(q: CurrencyQuota) {
    this.q = q;
    try { this.onQuota?.(q); } catch { /* a consumer error must not break the client */ }
  }

  /**
   * Fetches the latest rates for `base` and caches them (when base is the client's base).
   * Returns code → units of that currency per one `base`. Entries without a positive value are skipped.
   */
  async latest(base = this.base, currencies = this.o.currencies, signal?: AbortSignal): Promise<Record<string, number>> {
    const params: Record<string, string> = { base_currency: base.toUpperCase() };
    if (currencies?.length) params.currencies = currencies.map((c) => c.toUpperCase()).join(',');
    const body = await this.get('/v3/latest', params, signal);
    const data = body.data;
    if (!data || typeof data !== 'object') throw new CurrencyApiError(200, 'no data in the response');
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(data as Record<string, any>)) {
      const value = typeof v?.value === 'number' ? v.value : Number(v?.value);
      const code = typeof v?.code === 'string' ? v.code.toUpperCase() : k.toUpperCase();
      if (Number.isFinite(value) && value > 0) out[code] = value;
    }
    if (base.toUpperCase() === this.base) {
      const next = new Map<string, Decimal>();
      for (const [k, v] of Object.entries(out)) next.set(k, dec(String(v)));
      next.set(this.base, dec(1));
      this.rates = next;
      this.updatedAt = this.now();
    }
    this.lastError = null;
    return out;
  }

  /** Quota for the month (free of quota itself). */
  async fetchStatus(signal?: AbortSignal): Promise<CurrencyQuota> {
    const body = await this.get('/v3/status', {}, signal);
    const m = body?.quotas?.month;
    const total = Number(m?.total), used = Number(m?.used);
    if (!Number.isFinite(total) || !Number.isFinite(used)) throw new CurrencyApiError(200, 'no quota in the response');
    const remaining = Number.isFinite(Number(m?.remaining)) ? Number(m.remaining) : Math.max(0, total - used);
    const q = { total, used, remaining, checkedAt: this.now() };
    this.setQuota(q);
    return q;
  }

  /** How many `to` units one `from` unit buys, from the cached table; undefined when unknown. */
  rate(from: string, to: string): Decimal | undefined {
    from = from.toUpperCase(); to = to.toUpperCase();
    if (from === to) return dec(1);
    const f = this.rates.get(from), t = this.rates.get(to);
    if (!f || !t || f.lte(0)) return undefined;
    return t.div(f);
  }

  quota(): CurrencyQuota | null { return this.q; }

  status(): CurrencyApiStatus {
    return {
      ok: this.lastError === null && this.updatedAt !== null,
      message: this.lastError ?? (this.updatedAt === null ? 'no rates yet' : `${this.rates.size} currencies`),
      base: this.base, currencies: this.rates.size, updatedAt: this.updatedAt, quota: this.q,
    };
  }

  /** Loads rates and quota now, then refreshes on timers. Errors are kept in status(), never thrown. */
  async start(onQuota?: (q: CurrencyQuota) => void): Promise<void> {
    this.onQuota = onQuota ?? null;
    await Promise.all([this.refresh(), this.checkQuota()]);
    const every = (ms: number | undefined, def: number, fn: () => Promise<void>) => {
      const p = ms ?? def;
      if (p <= 0) return;
      const t = setInterval(() => { void fn(); }, p);
      (t as { unref?: () => void }).unref?.();
      this.timers.push(t);
    };
    every(this.o.refreshMs, 6 * 3600_000, () => this.refresh());
    every(this.o.statusMs, 15 * 60_000, () => this.checkQuota());
  }

  stop() {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }

  async refresh() {
    try { await this.latest(); } catch (e) { this.lastError = errorMessage(e); }
  }

  async checkQuota() {
    try { await this.fetchStatus(); } catch (e) { this.lastError = errorMessage(e); }
  }
}

/**
 * A conversion lookup that prefers live quotes and falls back to the currency API:
 * `withFallback((f, t) => book.rate(f, t), currencyApi)`.
 */
export function withFallback(
  live: (from: string, to: string) => Decimal | undefined,
  api: Pick<CurrencyApi, 'rate'> | null | undefined,
) {
  return (from: string, to: string): Decimal | undefined => live(from, to) ?? api?.rate(from, to) ?? undefined;
}
