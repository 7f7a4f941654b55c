// HTTP providers against msw: the currency API (rates and quota) and the EOD REST poller.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { dec } from '../../src/domain/money.ts';
import { CurrencyApi, withFallback } from '../../src/feed/providers/currency.ts';
import { EodRestPoller } from '../../src/feed/providers/eod.ts';
import { fast, sink, waitFor } from './util.ts';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const CUR = 'https://api.currencyapi.com/v3';
const latestBody = {
  meta: { last_updated_at: '2024-05-01T23:59:59Z' },
  data: {
    EUR: { code: 'EUR', value: 0.9187001622 },
    GBP: { code: 'GBP', value: 0.7854201019 },
    AED: { code: 'AED', value: 3.6725 },
    BAD: { code: 'BAD', value: 'n/a' },
    ZERO: { code: 'ZERO', value: 0 },
    USD: { code: 'USD', value: 1 },
  },
};
const quotaHeaders = { 'X-RateLimit-Limit-Quota-Month': '300', 'X-RateLimit-Remaining-Quota-Month': '228' };

describe('currencyapi.com client', () => {
  test('latest: apikey header, query, parsed and cached rates, quota from headers', async () => {
    let req: Request | undefined;
    server.use(http.get(`${CUR}/latest`, ({ request }) => { req = request; return HttpResponse.json(latestBody, { headers: quotaHeaders }); }));
    const api = new CurrencyApi({ apiKey: 'cur-key', currencies: ['EUR', 'GBP', 'AED'] });
    const rates = await api.latest();
    expect(req!.headers.get('apikey')).toBe('cur-key');
    const u = new URL(req!.url);
    expect(u.searchParams.get('base_currency')).toBe('USD');
    expect(u.searchParams.get('currencies')).toBe('EUR,GBP,AED');
    expect(rates).toEqual({ EUR: 0.9187001622, GBP: 0.7854201019, AED: 3.6725, USD: 1 });
    expect(api.rate('USD', 'EUR')!.toNumber()).toBeCloseTo(0.9187001622, 10);
    expect(api.rate('EUR', 'USD')!.toNumber()).toBeCloseTo(1 / 0.9187001622, 10);
    expect(api.rate('EUR', 'GBP')!.toString()).toBe(dec('0.7854201019').div('0.9187001622').toString());
    expect(api.rate('AED', 'AED')!.toNumber()).toBe(1);
    expect(api.rate('USD', 'XYZ')).toBeUndefined();
    expect(api.rate('BAD', 'USD')).toBeUndefined();
    expect(api.quota()).toMatchObject({ total: 300, remaining: 228, used: 72 });
  });

  test('status endpoint: quotas.month used/total', async () => {
    server.use(http.get(`${CUR}/status`, ({ request }) => {
      expect(request.headers.get('apikey')).toBe('cur-key');
      return HttpResponse.json({ account_id: 313373, quotas: { month: { total: 300, used: 71, remaining: 229 }, grace: { total: 0, used: 0, remaining: 0 } } });
    }));
    const api = new CurrencyApi({ apiKey: 'cur-key', now: () => 1000 });
    expect(await api.fetchStatus()).toEqual({ total: 300, used: 71, remaining: 229, checkedAt: 1000 });
    expect(api.status().quota).toEqual({ total: 300, used: 71, remaining: 229, checkedAt: 1000 });
  });

  test('errors: 401 and 429 are reported with the provider message; cache kept', async () => {
    const api = new CurrencyApi({ apiKey: 'cur-key', refreshMs: 0, statusMs: 0 });
    server.use(http.get(`${CUR}/latest`, () => HttpResponse.json(latestBody)));
    await api.latest();
    server.use(
      http.get(`${CUR}/latest`, () => HttpResponse.json({ message: 'You have used all your monthly requests' }, { status: 429 })),
      http.get(`${CUR}/status`, () => HttpResponse.json({ message: 'Invalid authentication credentials' }, { status: 401 })),
    );
    await expect(api.latest()).rejects.toThrow('HTTP 429: You have used all your monthly requests');
    await expect(api.fetchStatus()).rejects.toThrow('HTTP 401: Invalid authentication credentials');
    await api.refresh(); // never throws
    expect(api.status()).toMatchObject({ ok: false, message: 'HTTP 429: You have used all your monthly requests' });
    expect(api.rate('USD', 'EUR')!.toNumber()).toBeCloseTo(0.9187, 4);
  });

  test('malformed bodies are refused, not cached', async () => {
    server.use(http.get(`${CUR}/latest`, () => new HttpResponse('<html>oops</html>', { status: 200 })));
    const api = new CurrencyApi({ apiKey: 'k' });
    await expect(api.latest()).rejects.toThrow('unreadable body');
    server.use(http.get(`${CUR}/latest`, () => HttpResponse.json({ meta: {} })));
    await expect(api.latest()).rejects.toThrow('no data');
    expect(api.rate('USD', 'EUR')).toBeUndefined();
  });

  test('start() loads rates and quota and reports the quota; stop() clears timers', async () => {
    server.use(
      http.get(`${CUR}/latest`, () => HttpResponse.json(latestBody)),
      http.get(`${CUR}/status`, () => HttpResponse.json({ quotas: { month: { total: 300, used: 10, remaining: 290 } } })),
    );
    const seen: number[] = [];
    const api = new CurrencyApi({ apiKey: 'k', baseUrl: 'https://api.currencyapi.com/' });
    await api.start((q) => seen.push(q.remaining));
    api.stop();
    expect(seen).toEqual([290]);
    expect(api.status()).toMatchObject({ ok: true, currencies: 4, quota: { used: 10, total: 300 } });
  });

  test('withFallback prefers live quotes', () => {
    const api = { rate: (f: string, t: string) => (f === 'USD' && t === 'AED' ? dec('3.6725') : undefined) };
    const live = (f: string, t: string) => (f === 'USD' && t === 'EUR' ? dec('0.92') : undefined);
    const r = withFallback(live, api);
    expect(r('USD', 'EUR')!.toString()).toBe('0.92');
    expect(r('USD', 'AED')!.toString()).toBe('3.6725');
    expect(r('USD', 'XYZ')).toBeUndefined();
    expect(withFallback(live, null)('USD', 'AED')).toBeUndefined();
  });
});

describe('EOD REST poller (fallback)', () => {
  const EOD = 'https://eodhd.com/api/real-time/AAPL.US';

  test('one request for every symbol; emits when a timestamp changes; skips bad rows', async () => {
    let n = 0;
    let url: URL | undefined;
    server.use(http.get(EOD, ({ request }) => {
      url = new URL(request.url);
      n++;
      return HttpResponse.json([
        { code: 'AAPL.US', timestamp: 1704398400 + (n > 1 ? 60 : 0), gmtoffset: 0, open: 1, high: 1, low: 1, close: 190.12, volume: 1, previousClose: 1, change: 0, change_p: 0 },
        { code: 'MSFT.US', timestamp: 1704398400, close: 'NA' },
        { code: 'TSLA.US', timestamp: 1704398400, close: 175.66 },
        'junk',
      ]);
    }));
    const s = sink();
    const p = new EodRestPoller({ apiKey: 'eod-key', instruments: ['AAPL_USD', 'MSFT_USD'], intervalMs: 10, ...fast });
    await p.start(s.emit, s.beat);
    await waitFor(() => n >= 3, 2000, 'three polls');
    await p.stop();
    expect(url!.searchParams.get('api_token')).toBe('eod-key');
    expect(url!.searchParams.get('fmt')).toBe('json');
    expect(url!.searchParams.get('s')).toBe('MSFT.US');
    expect(s.ticks).toEqual([
      { symbol: 'AAPL_USD', bid: 190.12, ask: 190.12, ts: 1704398400000 },
      { symbol: 'AAPL_USD', bid: 190.12, ask: 190.12, ts: 1704398460000 },
    ]);
    expect(s.beats[0]).toEqual({ api: 'eodStock', success: true, msg: 'polling 2 symbols' });
    expect(p.status().ignored).toBeGreaterThanOrEqual(3);
  });

  test('HTTP errors back off and are reported', async () => {
    let n = 0;
    server.use(http.get(EOD, () => { n++; return new HttpResponse('Unauthenticated', { status: 401 }); }));
    const s = sink();
    const p = new EodRestPoller({ apiKey: 'bad', instruments: ['AAPL_USD'], ...fast });
    await p.start(s.emit, s.beat);
    await waitFor(() => n >= 2, 2000, 'a retry');
    await p.stop();
    expect(s.beats[0]).toMatchObject({ api: 'eodStock', success: false });
    expect(s.beats[0].msg).toContain('HTTP 401');
  });
});
