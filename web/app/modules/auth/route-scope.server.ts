// The declaration of the route whose loader or action is running, when the route gate
// (route-gate.server.ts) runs it: requireAccess in that code checks the same declaration.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RouteAccess } from './permissions.ts';

declare global {
  // one instance however many copies of this module a process loads (the Vite dev server's and the build's)
  var __brokerRouteScope: AsyncLocalStorage<RouteAccess> | undefined;
}

const routeScope = (globalThis.__brokerRouteScope ??= new AsyncLocalStorage<RouteAccess>());

export function currentRouteAccess(): RouteAccess | undefined {
  return routeScope.getStore();
}

export function runInRoute<T>(access: RouteAccess, run: () => T): T {
  return routeScope.run(access, run);
}
