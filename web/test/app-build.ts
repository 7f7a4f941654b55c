// The app's own server build, in-process: every route module of web/app/routes under the tree
// Remix's flat-routes convention makes of their file names (the same function the Vite plugin
// calls), passed through the route gate exactly as web/server.mjs does. Requests sent to its
// handler meet the real router (case-insensitive, percent-decoding matching) and the real gate;
// a document request answers its status without rendering React.
import path from 'node:path';
import { createRequire } from 'node:module';
import { createRequestHandler, type ServerBuild } from '@remix-run/node';
import { guardBuild } from '~/modules/auth/route-gate.server.ts';
import { mergeSlashes } from '../route-matching.mjs';

interface ManifestRoute { id: string; parentId?: string; path?: string; index?: boolean; caseSensitive?: boolean; file: string }

const appDir = path.resolve(__dirname, '../app');
const routeFiles = import.meta.glob<Record<string, unknown>>('../app/routes/*.{ts,tsx}');
const root = () => import('../app/root.tsx');

/** The route tree Remix builds from the file names (@remix-run/dev's flatRoutes). */
function manifest(): Record<string, ManifestRoute> {
  const { flatRoutes } = createRequire(import.meta.url)('@remix-run/dev/dist/config/flat-routes.js') as {
    flatRoutes: (appDirectory: string) => Record<string, ManifestRoute>;
  };
  return flatRoutes(appDir);
}

let built: Promise<ServerBuild> | undefined;

/** The guarded build (loaded once per test file). */
export function appBuild(): Promise<ServerBuild> {
  return (built ??= (async () => {
    const routes: Record<string, ManifestRoute & { module: unknown }> = {
      root: { id: 'root', path: '', file: 'root.tsx', module: await root() },
    };
    for (const r of Object.values(manifest())) {
      const load = routeFiles[`../app/${r.file}`];
      if (!load) throw new Error(`no module for ${r.file}`);
      routes[r.id] = { ...r, parentId: r.parentId ?? 'root', module: await load() };
    }
    const build = {
      mode: 'production', basename: '/', publicPath: '/', assetsBuildDirectory: '/tmp', isSpaMode: false,
      future: { v3_fetcherPersist: true, v3_relativeSplatPath: false, v3_throwAbortReason: true, v3_routeConfig: false, v3_singleFetch: true, v3_lazyRouteDiscovery: true, unstable_optimizeDeps: false },
      entry: { module: { default: (_req: Request, status: number) => new Response(`document ${status}`, { status, headers: { 'content-type': 'text/html' } }) } },
      routes,
      assets: {
        url: '/manifest.js', version: 'test', entry: { module: '/entry.js', imports: [] },
        routes: Object.fromEntries(Object.values(routes).map((r) => {
          const m = r.module as Record<string, unknown>;
          return [r.id, { id: r.id, parentId: r.id === 'root' ? undefined : r.parentId, path: r.path, index: r.index, module: '/x.js', hasAction: !!m.action, hasLoader: !!m.loader, hasClientAction: false, hasClientLoader: false, hasErrorBoundary: !!m.ErrorBoundary }];
        })),
      },
    } as unknown as ServerBuild;
    return guardBuild(build);
  })());
}

/** A request handler over the guarded build, as web/server.mjs serves it (slashes merged, client address in the context). */
export async function appHandler(): Promise<(request: Request) => Promise<Response>> {
  const handler = createRequestHandler(await appBuild(), 'production');
  return (request) => {
    const url = new URL(request.url);
    const target = mergeSlashes(url.pathname + url.search);
    const merged = target === url.pathname + url.search ? request : new Request(url.origin + target, request);
    return handler(merged, { clientIp: '127.0.0.1' });
  };
}

/** Each route file of web/app/routes with its route id and URL pattern (`:param`), from the same tree. */
export function routeTable(): { file: string; id: string; pattern: string | null }[] {
  const m = manifest();
  const full = (id: string): string | null => {
    const r = m[id];
    const own = r.path ?? '';
    if (!r.parentId || r.parentId === 'root') return own;
    const parent = full(r.parentId);
    return [parent, own].filter(Boolean).join('/');
  };
  return Object.values(m).map((r) => {
    const pathless = r.path === undefined && !r.index;
    const p = full(r.id) ?? '';
    return { file: r.file.replace(/^routes\//, ''), id: r.id, pattern: pathless ? null : `/${p}`.replace(/\/$/, '') || '/' };
  });
}
