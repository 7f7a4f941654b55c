// Market data: quotes with market status, candles, conversion rates. Public, read-only.
import { Elysia, t } from 'elysia';
import type { Core } from '../core.ts';
import { readCandles, type Interval } from '../book/candles.ts';
import { HttpError } from './errors.ts';

export function marketRoutes(core: Core) {
  const { book } = core;
  return new Elysia()
    .get('/quotes', () => ({
      status: book.status(),
      quotes: [...book.instruments.values()].map((i) => {
        const q = book.quote(i.name);
        return {
          name: i.name, category: i.category, tradable: i.tradable, open: book.isOpen(i.category),
          bids: q?.bid ?? null, asks: q?.ask ?? null, prevBids: q?.prevBid ?? null, prevAsks: q?.prevAsk ?? null,
          closeoutBid: q?.closeoutBid ?? null, closeoutAsk: q?.closeoutAsk ?? null, ts: q?.ts ?? null,
          // a saved quote from before the engine started (or one past PRICE_MAX_AGE_MS): shown, not traded on
          stale: !!q && !book.isTradable(q),
        };
      }),
    }))
    .get('/candles/:symbol', async ({ params, query }) => {
      const inst = book.instruments.get(params.symbol);
      if (!inst) throw new HttpError(404, 'Unknown instrument');
      const interval = (query.interval ?? '1D') as Interval;
      return { symbol: inst.name, interval, candles: await readCandles(core.orders.sql, inst.id, interval, query.limit ?? 500) };
    }, {
      params: t.Object({ symbol: t.String({ maxLength: 64 }) }),
      query: t.Object({
        interval: t.Optional(t.Union([t.Literal('1m'), t.Literal('1h'), t.Literal('1D')])),
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 5000 })),
      }),
    })
    .get('/rates', ({ query }) => {
      const r = book.rate(query.from, query.to, { stale: true }); // display: a saved quote will do
      if (!r) throw new HttpError(404, `No conversion rate from ${query.from} to ${query.to}`);
      return { from: query.from.toUpperCase(), to: query.to.toUpperCase(), rate: r.toSignificantDigits(12).toString() };
    }, { query: t.Object({ from: t.String({ pattern: '^[A-Za-z]{3,5}$' }), to: t.String({ pattern: '^[A-Za-z]{3,5}$' }) }) });
}
