// The engine as web calls it: the contract's typed client (engine/src/contract/client.ts) at
// ENGINE_URL with ENGINE_SECRET. Bodies and answers are typed by the engine's own route schemas;
// refusals come back as { ok: false, status, code, message }, and a down engine is one too (503).
import { engineClient, type EngineClient } from '@broker/engine/contract/client';
import { env } from '~/shared/env.server.ts';

export type { EngineRefusal, EngineResult } from '@broker/engine/contract/client';

let cached: { key: string; client: EngineClient } | undefined;

/** The client for the configured engine (one per URL and secret). */
export function engine(): EngineClient {
  const e = env();
  const key = `${e.ENGINE_URL}\n${e.ENGINE_SECRET}`;
  if (cached?.key !== key) cached = { key, client: engineClient(e.ENGINE_URL, { secret: e.ENGINE_SECRET }) };
  return cached.client;
}

type Ok<R> = Extract<Awaited<R>, { ok: true }>;
/** One order as the engine answers it. */
export type EngineOrder = Ok<ReturnType<EngineClient['placeOrder']>>['order'];
/** One instrument's quote as GET /v1/quotes answers it. */
export type EngineQuote = Ok<ReturnType<EngineClient['quotes']>>['quotes'][number];
export type MarketStatus = Ok<ReturnType<EngineClient['quotes']>>['status'];
