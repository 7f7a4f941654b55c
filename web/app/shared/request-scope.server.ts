// What one HTTP request reads once and every loader of it shares (the session). Remix hands each
// loader its own Request object, so nothing keyed by the Request is shared between the layout's
// loader and the page's; web/server.mjs runs each request in this AsyncLocalStorage scope instead.
// Outside it (the Vite dev server, tests) nothing is shared and each caller reads for itself.
import { AsyncLocalStorage } from 'node:async_hooks';

declare global {
  // one instance for web/server.mjs and the server build it imports
  var __brokerRequestScope: AsyncLocalStorage<Map<unknown, unknown>> | undefined;
}

const scope = (globalThis.__brokerRequestScope ??= new AsyncLocalStorage<Map<unknown, unknown>>());

/**
 * `read()` once per HTTP request for reads (GET/HEAD): an action's read is never shared, so the
 * loaders that run after it in the same request read what it changed.
 */
export function oncePerRequest<T>(request: Request, key: unknown, read: () => T): T {
  const memo = request.method === 'GET' || request.method === 'HEAD' ? scope.getStore() : undefined;
  if (!memo) return read();
  if (!memo.has(key)) memo.set(key, read());
  return memo.get(key) as T;
}
