// Conversion rates from a currency API (currencyapi.com v3) when no live FX quote covers a
// pair, with its quota figures for the API status page (admin.md §2.14: value2 remaining,
// value3 monthly limit).
export interface Quota { used: number; total: number; remaining: number }

export class CurrencyApi {
  constructor(private key: string, private base = 'https://api.currencyapi.com/v3') {}

  /** Rates from `base` currency: how many of each currency one unit buys. */
  async latest(baseCurrency = 'USD', currencies?: string[]): Promise<Record<string, number>> {
    const q = new URLSearchParams({ base_currency: baseCurrency, ...(currencies ? { currencies: currencies.join(',') } : {}) });
    const res = await fetch(`${this.base}/latest?${q}`, { headers: { apikey: this.key } });
    if (!res.ok) throw new Error(`currency API: HTTP ${res.status}`);
    const body = (await res.json()) as { data: Record<string, { code: string; value: number }> };
    return Object.fromEntries(Object.values(body.data).map((r) => [r.code, r.value]));
  }

  async quota(): Promise<Quota> {
    const res = await fetch(`${this.base}/status`, { headers: { apikey: this.key } });
    if (!res.ok) throw new Error(`currency API: HTTP ${res.status}`);
    const body = (await res.json()) as { quotas: { month: { total: number; used: number; remaining: number } } };
    const m = body.quotas.month;
    return { used: m.used, total: m.total, remaining: m.remaining };
  }
}
