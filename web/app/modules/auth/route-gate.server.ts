// The route gate (docs/specs.md#permissions): who may use a route is a property of the route.
// Each route module declares it (`export const access = routeAccess('/admin/users')`, from the
// one permission map in permissions.ts), and `guardBuild` wraps every loader and action of the
// server build so that the declaration of the route the router matched is enforced before its
// code runs: documents, data requests (`.data`), actions (which run without their layouts'
// loaders) and resource routes alike. How the request spelled its path plays no part: the router
// matches case-insensitively and percent-decoded, and the gate never reads the path.
// A route module without a declaration is closed to everyone (404).
import type { ServerBuild } from '@remix-run/node';
import type { RouteAccess } from './permissions.ts';
import { checkRouteAccess } from './guards.server.ts';
import { runInRoute } from './route-scope.server.ts';

type Handler = (args: { request: Request; params: Record<string, string | undefined>; context: unknown }) => unknown;
interface RouteModule { access?: RouteAccess; loader?: Handler; action?: Handler }
type ServerRoute = ServerBuild['routes'][string];
const moduleOf = (route: ServerRoute) => route.module as unknown as RouteModule;

function closed(): Response {
  return new Response('Not Found', { status: 404, statusText: 'Not Found' });
}

/** One handler behind its route's declaration. */
function guarded(access: RouteAccess | undefined, handler: Handler): Handler {
  return async (args) => {
    if (!access) throw closed();
    await checkRouteAccess(access, args.request, args.context as never);
    return runInRoute(access, () => handler(args));
  };
}

/** A route module whose loader and action enforce its declaration. */
export function guardRouteModule<M extends RouteModule>(module: M): M {
  const { access, loader, action } = module;
  return {
    ...module,
    ...(loader ? { loader: guarded(access, loader) } : {}),
    ...(action ? { action: guarded(access, action) } : {}),
  };
}

/** The route ids of the build whose module serves data (a loader or an action) without a declaration. */
export function undeclaredRoutes(build: Pick<ServerBuild, 'routes'>): string[] {
  return Object.values(build.routes)
    .filter((r) => {
      const m = moduleOf(r);
      return (m.loader || m.action) && !m.access;
    })
    .map((r) => r.id);
}

/** The server build with every route module guarded (web/server.mjs applies it). */
export function guardBuild<B extends Pick<ServerBuild, 'routes'>>(build: B): B {
  const undeclared = undeclaredRoutes(build);
  if (undeclared.length) console.error(`[web] routes closed for want of an access declaration: ${undeclared.join(', ')}`);
  const routes = Object.fromEntries(Object.entries(build.routes).map(([id, route]) =>
    [id, { ...route, module: guardRouteModule(moduleOf(route)) }]));
  return { ...build, routes } as B;
}
