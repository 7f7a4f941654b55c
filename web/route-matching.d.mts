// Types of route-matching.mjs (plain JavaScript: web/server.mjs loads it before the app's build).
import type { matchRoutes } from '@remix-run/router';

/** matchRoutes with its answers kept per route shape, basename and path. */
export function memoizeMatchRoutes(original: typeof matchRoutes): typeof matchRoutes;
/** Installs the memo on @remix-run/router's exports (once). */
export function installRouteMatching(router: { matchRoutes: typeof matchRoutes }): void;
/** The request target with runs of slashes in its path merged into one. */
export function mergeSlashes(target: string): string;
