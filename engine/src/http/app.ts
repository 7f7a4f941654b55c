// The Elysia app. main.ts listens; tests call app.handle(new Request(...)).
import { Elysia, t } from 'elysia';
import type { Sql } from '../db.ts';
import type { Core } from '../core.ts';
import type { Bus } from '../bus/index.ts';
import type { Hub } from '../realtime/hub.ts';
import type { Gateway } from '../realtime/gateway.ts';
import type { FeedStatus } from '../feed/feed.ts';
import { HttpError } from './errors.ts';
import { orderRoutes } from './orders.ts';
import { pendingRoutes } from './pending.ts';
import { marketRoutes } from './market.ts';
import { realtimeRoutes, streamRoutes } from './realtime.ts';
import { metricsText, gatewayMetricsText } from './metrics.ts';
import { requireSecret } from './internal.ts';
import { serverInfo } from '../contract/server-info.ts';
import { DECIMAL_INPUTS, parseDecimal, type DecimalField } from '../domain/index.ts';
import { Refused, STATUS } from '../orders/results.ts';
import { numberRefusal } from '../orders/service.ts';

export { HttpError };

export interface AppDeps {
  sql: Sql;
  startedAt?: Date;
  core?: Core;
  bus?: Bus;
  hub?: Hub;
  /** ENGINE_ROLE=gateway: the stream and its metrics, no core */
  gateway?: Gateway;
  feeds?: () => FeedStatus[];
  /** failover (partitions.ts): which process owns which partition */
  partitions?: () => Promise<unknown>;
  secret?: string;
  testControls?: boolean;
}

export function createApp({ sql, startedAt = new Date(), core, bus, hub, gateway, feeds, partitions, secret = 'dev-only-engine-secret-change-me', testControls = false }: AppDeps) {
  return new Elysia({ prefix: '/v1' })
    .error({ HttpError, Refused })
    .onError(({ code, error, set }) => {
      if (code === 'HttpError') {
        set.status = error.status;
        return { message: error.message };
      }
      if (code === 'Refused') {
        set.status = error.status;
        return { message: error.message, code: error.refusal };
      }
      if (code === 'VALIDATION') {
        // a number the decimal parser refused is a refusal naming the field, with the field's
        // code (an order's amount 422 invalid_amount, a rate 400 invalid); other shapes a plain 400
        const first = error.all?.[0] as { path?: string; message?: string } | undefined;
        const field = first?.path?.replace(/^\//, '').split(/[/.]/)[0] ?? '';
        if (first?.message && field in DECIMAL_INPUTS) {
          const c = numberRefusal(field as DecimalField);
          set.status = STATUS[c];
          return { message: first.message, code: c };
        }
        set.status = 400;
        return { message: 'Invalid request', code: 'invalid', details: error.all?.map((e) => ('summary' in e ? e.summary : e.message)) };
      }
      if (code === 'NOT_FOUND') {
        set.status = 404;
        return { message: 'Not found' };
      }
      if (code === 'PARSE') {
        set.status = 400;
        return { message: 'Invalid request body' };
      }
      console.error(error);
      set.status = 500;
      return { message: 'Something went wrong' };
    })
    .get('/health', async ({ set }) => {
      const database = await sql`SELECT 1 AS ok`.then(() => 'up' as const, () => 'down' as const);
      const busUp = bus ? ((await bus.ping()) ? 'up' : 'down') : undefined;
      const healthy = database === 'up' && busUp !== 'down';
      set.status = healthy ? 200 : 503;
      return {
        status: healthy ? 'ok' : 'degraded',
        database,
        ...(bus ? { bus: { kind: bus.kind, status: busUp } } : {}),
        ...(feeds ? { feeds: feeds() } : {}),
        ...(partitions ? { partitions: await partitions().catch((e) => ({ error: (e as Error).message })) } : {}),
        uptimeSeconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
      };
    })
    // the admin's Server Information page, through web (the secret): this process's CPU and memory
    .get('/server', async ({ headers }) => {
      requireSecret(headers, secret);
      return { server: await serverInfo() };
    })
    // typed as the engine with every role (the typed client's App); a process without a core answers 404
    .use(core ? coreRoutes(core, hub, secret, testControls)
      : gateway ? (gatewayRoutes(gateway) as unknown as ReturnType<typeof coreRoutes>)
      : (new Elysia() as unknown as ReturnType<typeof coreRoutes>))
    .use(hub && core ? realtimeRoutes(hub, core, sql, secret)
      : gateway ? (streamRoutes(gateway.hub, sql, secret) as unknown as ReturnType<typeof realtimeRoutes>)
      : (new Elysia() as unknown as ReturnType<typeof realtimeRoutes>));
}

function coreRoutes(core: Core, hub: Hub | undefined, secret: string, testControls: boolean) {
  return new Elysia()
    .get('/metrics', ({ set }) => {
      set.headers['content-type'] = 'text/plain; version=0.0.4';
      return metricsText(core, hub);
    })
    .use(marketRoutes(core))
    .use(orderRoutes(core, secret))
    .use(pendingRoutes(core, secret))
    .use(testControls ? testRoutes(core, secret) : (new Elysia() as unknown as ReturnType<typeof testRoutes>));
}

/** A gateway's own metrics (its stream clients, the ticks it fanned out). */
function gatewayRoutes(gateway: Gateway) {
  return new Elysia().get('/metrics', ({ set }) => {
    set.headers['content-type'] = 'text/plain; version=0.0.4';
    return gatewayMetricsText(gateway);
  });
}

/** Only with ENGINE_TEST_CONTROLS=1: end-to-end tests set prices. */
function testRoutes(core: Core, secret: string) {
  const quote = t.Object({ symbol: t.String(), bid: t.Number({ exclusiveMinimum: 0 }), ask: t.Number({ exclusiveMinimum: 0 }) });
  return new Elysia().post('/test/quotes', async ({ body, headers }) => {
    requireSecret(headers, secret);
    const quotes = Array.isArray(body) ? body : [body];
    for (const q of quotes) {
      for (const f of ['bid', 'ask'] as const) {
        const r = parseDecimal(q[f], f); // within instruments.bids/asks, like every number that comes in
        if (!r.ok) throw new HttpError(400, r.message);
      }
      if (!core.book.instruments.has(q.symbol)) throw new HttpError(404, `Unknown instrument ${q.symbol}`);
      if (q.ask < q.bid) throw new HttpError(400, 'ask must be at or above bid');
      core.ingest({ symbol: q.symbol, bid: q.bid, ask: q.ask, ts: Date.now() });
    }
    await core.executor.idle(); // the closes these prices trigger are settled when this answers
    await core.pendingIdle();   // and the pending orders they fill
    await core.executor.idle();
    return { ok: true };
  }, { body: t.Union([quote, t.Array(quote)]) });
}

/** The engine's HTTP API as a type: web's typed client (contract/client.ts) is built over it. */
export type App = ReturnType<typeof createApp>;
