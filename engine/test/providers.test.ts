// Real provider code against fakes built from the providers' documented message formats:
// msw for OANDA's HTTP stream and the currency API, local WebSocket servers for Polygon and EOD.
import { describe, expect, test, afterAll, beforeAll } from 'bun:test';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { OandaStream, parseOandaLine } from '../src/feed/oanda.ts';
import { WebSocketFeed, polygonForex, polygonCrypto, eodStocks } from '../src/feed/websocket.ts';
import { CurrencyApi } from '../src/feed/currency.ts';
import type { Tick } from '../src/book/book.ts';
import type { Heartbeat } from '../src/feed/feed.ts';

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) { if (Date.now() > end) throw new Error('timed out'); await Bun.sleep(10); }
};

const enc = new TextEncoder();
const server = setupServer(
  http.get('https://stream-fxpractice.oanda.com/v3/accounts/:id/pricing/stream', ({ request, params }) => {
    if (request.headers.get('authorization') !== 'Bearer good-token') {
      return HttpResponse.json({ errorMessage: 'Insufficient authorization to perform request.' }, { status: 401 });
    }
    const url = new URL(request.url);
    expect(params.id).toBe('101-004-1');
    expect(url.searchParams.get('instruments')).toBe('EUR_USD,USD_JPY');
    const lines = [
      { type: 'PRICE', instrument: 'EUR_USD', time: '2024-11-25T10:00:00.123456789Z', bids: [{ price: '1.05010', liquidity: 1000000 }], asks: [{ price: '1.05024', liquidity: 1000000 }], closeoutBid: '1.05010', closeoutAsk: '1.05024', tradeable: true },
      { type: 'HEARTBEAT', time: '2024-11-25T10:00:05.000000000Z' },
      { type: 'PRICE', instrument: 'USD_JPY', time: '2024-11-25T10:00:06.000000000Z', bids: [{ price: '154.120' }], asks: [{ price: '154.135' }], closeoutBid: '154.120', closeoutAsk: '154.135', tradeable: true },
    ];
    const stream = new ReadableStream({
      start(c) {
        // split across chunks the way a network would
        const text = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
        c.enqueue(enc.encode(text.slice(0, 50)));
        c.enqueue(enc.encode(text.slice(50)));
      },
    });
    return new HttpResponse(stream, { headers: { 'content-type': 'application/octet-stream' } });
  }),
  http.get('https://api.currencyapi.com/v3/latest', ({ request }) => {
    if (request.headers.get('apikey') !== 'cur-key') return HttpResponse.json({ message: 'Invalid authentication credentials' }, { status: 401 });
    return HttpResponse.json({ meta: { last_updated_at: '2024-11-25T00:00:00Z' }, data: { EUR: { code: 'EUR', value: 0.95 }, JPY: { code: 'JPY', value: 154.1 } } });
  }),
  http.get('https://api.currencyapi.com/v3/status', () =>
    HttpResponse.json({ account_id: 1, quotas: { month: { total: 300, used: 72, remaining: 228 }, grace: { total: 0, used: 0, remaining: 0 } } })),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterAll(() => server.close());

describe('OANDA v20 pricing stream', () => {
  test('parses PRICE lines and skips heartbeats', () => {
    expect(parseOandaLine('{"type":"HEARTBEAT","time":"2024-11-25T10:00:05Z"}')).toBeNull();
    expect(parseOandaLine('{"type":"PRICE","instrument":"EUR_USD","time":"2024-11-25T10:00:00Z","bids":[{"price":"1.1"}],"asks":[{"price":"1.2"}]}'))
      .toEqual({ symbol: 'EUR_USD', bid: 1.1, ask: 1.2, ts: Date.parse('2024-11-25T10:00:00Z') });
  });

  test('streams ticks and heartbeats from the practice host', async () => {
    const feed = new OandaStream({ accountId: '101-004-1', token: 'good-token', mode: 'fxpractice', instruments: ['EUR_USD', 'USD_JPY'], reconnectMs: 50 });
    const ticks: Tick[] = [], beats: Heartbeat[] = [];
    await feed.start((t) => ticks.push(t), (h) => beats.push(h));
    await until(() => ticks.length >= 2);
    await feed.stop();
    expect(ticks.slice(0, 2).map((t) => [t.symbol, t.bid, t.ask])).toEqual([['EUR_USD', 1.0501, 1.05024], ['USD_JPY', 154.12, 154.135]]);
    expect(beats[0]).toEqual({ api: 'oandaRest', success: true, msg: 'connected' });
    expect(beats.some((b) => b.msg === 'heartbeat')).toBe(true);
  });

  test('a bad token is reported as a failed heartbeat', async () => {
    const feed = new OandaStream({ accountId: '101-004-1', token: 'bad', mode: 'fxpractice', instruments: ['EUR_USD'], reconnectMs: 10_000 });
    const beats: Heartbeat[] = [];
    await feed.start(() => {}, (h) => beats.push(h));
    await until(() => beats.length >= 1);
    await feed.stop();
    expect(beats[0]).toMatchObject({ api: 'oandaRest', success: false });
    expect(beats[0].msg).toContain('401');
    expect(feed.status().connected).toBe(false);
  });
});

describe('currency API', () => {
  test('latest rates and the monthly quota', async () => {
    const api = new CurrencyApi('cur-key');
    expect(await api.latest('USD', ['EUR', 'JPY'])).toEqual({ EUR: 0.95, JPY: 154.1 });
    expect(await api.quota()).toEqual({ used: 72, total: 300, remaining: 228 });
    await expect(new CurrencyApi('wrong').latest()).rejects.toThrow('HTTP 401');
  });
});

/** A local WebSocket server speaking a provider's protocol. */
function fakeSocket(onMessage: (msg: any, send: (x: unknown) => void) => void, onOpen?: (send: (x: unknown) => void) => void) {
  const received: any[] = [];
  const srv = Bun.serve({
    port: 0,
    fetch(req, s) { return s.upgrade(req) ? undefined : new Response('upgrade required', { status: 426 }); },
    websocket: {
      open(ws) { onOpen?.((x) => ws.send(JSON.stringify(x))); },
      message(ws, m) { const msg = JSON.parse(String(m)); received.push(msg); onMessage(msg, (x) => ws.send(JSON.stringify(x))); },
    },
  });
  return { url: `ws://127.0.0.1:${srv.port}`, received, stop: () => srv.stop(true) };
}

describe('Polygon websockets', () => {
  test('forex: auth, subscribe C.EUR/USD, quotes to ticks', async () => {
    const fake = fakeSocket((msg, send) => {
      if (msg.action === 'auth') send([{ ev: 'status', status: msg.params === 'pk' ? 'auth_success' : 'auth_failed', message: 'authenticated' }]);
      if (msg.action === 'subscribe') send([{ ev: 'C', p: 'EUR/USD', x: 48, a: 1.0502, b: 1.0501, t: 1732528800000 }, { ev: 'C', p: 'USD/JPY', x: 48, a: 154.2, b: 154.1, t: 1732528800001 }]);
    }, (send) => send([{ ev: 'status', status: 'connected', message: 'Connected Successfully' }]));
    const feed = new WebSocketFeed(polygonForex('pk', fake.url), ['EUR_USD', 'USD_JPY']);
    const ticks: Tick[] = [], beats: Heartbeat[] = [];
    await feed.start((t) => ticks.push(t), (h) => beats.push(h));
    await until(() => ticks.length >= 2);
    await feed.stop(); fake.stop();
    expect(fake.received).toEqual([{ action: 'auth', params: 'pk' }, { action: 'subscribe', params: 'C.EUR/USD,C.USD/JPY' }]);
    expect(ticks).toEqual([{ symbol: 'EUR_USD', bid: 1.0501, ask: 1.0502, ts: 1732528800000 }, { symbol: 'USD_JPY', bid: 154.1, ask: 154.2, ts: 1732528800001 }]);
    expect(beats[0]).toEqual({ api: 'polygonForex', success: true, msg: 'authenticated' });
  });

  test('crypto: XQ quotes; a failed auth is a failed heartbeat', async () => {
    const fake = fakeSocket((msg, send) => {
      if (msg.action === 'auth') send([{ ev: 'status', status: 'auth_failed', message: 'authentication failed' }]);
    });
    const feed = new WebSocketFeed(polygonCrypto('wrong', fake.url), ['BTC_USD']);
    const beats: Heartbeat[] = [];
    await feed.start(() => {}, (h) => beats.push(h));
    await until(() => beats.length >= 1);
    await feed.stop(); fake.stop();
    expect(beats[0]).toEqual({ api: 'polygonCrypto', success: false, msg: 'authentication failed' });
    expect(polygonCrypto('k').parse(JSON.stringify([{ ev: 'XQ', pair: 'BTC-USD', bp: 97000.5, bs: 0.1, ap: 97001, as: 0.2, t: 1732528800000, x: 1 }])).ticks)
      .toEqual([{ symbol: 'BTC_USD', bid: 97000.5, ask: 97001, ts: 1732528800000 }]);
  });
});

describe('EOD Historical Data websocket', () => {
  test('subscribe and US quotes to ticks', async () => {
    const fake = fakeSocket((msg, send) => {
      if (msg.action === 'subscribe') send({ s: 'AAPL', ap: 229.9, as: 100, bp: 229.8, bs: 200, t: 1732548600000 });
    }, (send) => send({ status_code: 200, message: 'Authorized' }));
    const feed = new WebSocketFeed(eodStocks('ek', fake.url), ['AAPL', 'MSFT']);
    const ticks: Tick[] = [], beats: Heartbeat[] = [];
    await feed.start((t) => ticks.push(t), (h) => beats.push(h));
    await until(() => ticks.length >= 1);
    await feed.stop(); fake.stop();
    expect(fake.received).toEqual([{ action: 'subscribe', symbols: 'AAPL,MSFT' }]);
    expect(ticks).toEqual([{ symbol: 'AAPL', bid: 229.8, ask: 229.9, ts: 1732548600000 }]);
    expect(beats[0]).toEqual({ api: 'eodStock', success: true, msg: 'Authorized' });
    expect(eodStocks('k x').url).toBe('wss://ws.eodhistoricaldata.com/ws/us-quote?api_token=k%20x');
  });
});

describe('provider choice (FEED=providers)', () => {
  const { chooseProviders, readProviderKeys } = require('../src/feed/select.ts') as typeof import('../src/feed/select.ts');
  const { encryptSecret, secretsKey } = require('../src/crypto/secrets.ts') as typeof import('../src/crypto/secrets.ts');
  const mk = (id: number, name: string, category: any) => ({ id, name, base: '', quote: 'USD', category, tradable: true, leverage: 1, digits: 5 });
  const list = [mk(1, 'EUR_USD', 'forex'), mk(2, 'XAU_USD', 'commodity'), mk(3, 'BTC_USD', 'crypto'), mk(4, 'AAPL', 'stock')];

  test('OANDA for fx-like, Polygon for crypto, EOD for stocks, the simulator for the rest', () => {
    const all = chooseProviders({ oanda: { accountId: 'a', token: 't', mode: 'fxpractice' }, polygon: 'p', eod: 'e' }, list);
    expect(all.providers.map((p) => p.name)).toEqual(['oanda', 'polygonCrypto', 'eodStock']);
    expect(all.rest).toEqual([]);
    const some = chooseProviders({ polygon: 'p' }, list);
    expect(some.providers.map((p) => p.name)).toEqual(['polygonForex', 'polygonCrypto']);
    expect(some.rest.map((i) => i.name)).toEqual(['XAU_USD', 'AAPL']);
    expect(chooseProviders({}, list).rest.length).toBe(4);
  });

  test('keys are read from api_settings and decrypted', async () => {
    const { db } = await import('./helpers.ts');
    const sql = db(2);
    const raw = 'test-secrets-key-0123456789abcdef0123';
    const k = secretsKey(raw);
    const before = await sql`SELECT * FROM api_settings`;
    try {
      await sql`DELETE FROM api_settings`;
      await sql`INSERT INTO api_settings (key, value1, value2, value3) VALUES
        ('oandaAPI', ${encryptSecret('101-1', k)}, ${encryptSecret('tok', k)}, 'fxtrade'), ('eodAPI', ${encryptSecret('eodkey', k)}, null, null)`;
      expect(await readProviderKeys(sql, raw)).toEqual({ oanda: { accountId: '101-1', token: 'tok', mode: 'fxtrade' }, eod: 'eodkey' });
    } finally {
      await sql`DELETE FROM api_settings`;
      for (const r of before) await sql`INSERT INTO api_settings ${sql(r as any)}`;
      await sql.end();
    }
  });
});
