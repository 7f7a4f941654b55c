// Production server of the web app: what remix-serve does (static assets, compression, request
// log), plus the client's IP address handed to loaders and actions as `context.clientIp`
// (remix-serve has no load context), which the per-IP rate limits and the staff IP whitelist
// need. Behind a reverse proxy set TRUST_PROXY to the number of proxies (1 behind one) or their
// addresses / subnets so the address comes from X-Forwarded-For (`true` is refused).
// WEB_CONCURRENCY=N runs N such processes (Node's cluster) behind the one port; each keeps its
// own pool and cache, kept current by PostgreSQL's NOTIFY.
import cluster from 'node:cluster';
import os from 'node:os';
import path from 'node:path';
import { readdirSync } from 'node:fs';
import url from 'node:url';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { visitorPageCache } from './page-cache.mjs';
import { installRouteMatching, mergeSlashes } from './route-matching.mjs';

// The environment of the HTTP server itself (the app's own is parsed in app/shared/env.server.ts).
const config = {
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST || undefined,
  trustProxy: trustProxySetting(process.env.TRUST_PROXY),
  workers: concurrency(process.env.WEB_CONCURRENCY),
  dev: process.argv.includes('--dev'),
};
/** zlib level of the pages' compression (see serve()). */
const PAGE_COMPRESSION_LEVEL = 4;

/**
 * TRUST_PROXY as Express's 'trust proxy': a hop count (1 behind one reverse proxy) or a list of
 * addresses, subnets or loopback / linklocal / uniquelocal; unset: none. `true` (and anything
 * else) stops the server: Express would then take the left-most X-Forwarded-For, which the client
 * writes, as its address (staff IP whitelist, per-IP limits). Same rule: app/shared/env.server.ts.
 */
function trustProxySetting(raw) {
  const v = (raw ?? '').trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 10) return Number(v);
  const entries = v.split(',').map((e) => e.trim());
  if (entries.every((e) => /^(loopback|linklocal|uniquelocal)$/.test(e) || /^\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?$/.test(e) || /^[0-9a-f:]*:[0-9a-f:.]*(\/\d{1,3})?$/i.test(e))) return entries;
  console.error(`[web] TRUST_PROXY=${JSON.stringify(raw)} is refused: set the number of proxies in front of the app (TRUST_PROXY=1 behind one reverse proxy) or their addresses / subnets (e.g. 10.0.0.0/8,loopback); \`true\` would believe the client-written left-most X-Forwarded-For`);
  process.exit(1);
}

/** WEB_CONCURRENCY: unset or 1 for one process, a whole number for that many, `auto` for one per CPU. */
function concurrency(raw) {
  const v = (raw ?? '').trim();
  if (!v) return 1;
  if (v === 'auto') return os.availableParallelism();
  if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 64) return Number(v);
  console.error(`[web] WEB_CONCURRENCY=${JSON.stringify(raw)} is not a number of processes: set a whole number from 1 to 64, or auto`);
  process.exit(1);
}

if (cluster.isPrimary && config.workers > 1 && !config.dev) supervise(config.workers);
else await serve();

/** The primary of a cluster: starts the workers, replaces one that dies, stops them all on a signal. */
function supervise(n) {
  let stopping = false;
  const started = new Map();
  const fork = () => started.set(cluster.fork().id, Date.now());
  for (let i = 0; i < n; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (started.get(worker.id) ?? 0);
    started.delete(worker.id);
    if (stopping) {
      if (started.size === 0) process.exit(0);
      return;
    }
    console.error(`[web] worker ${worker.process.pid} exited (${signal ?? `code ${code}`})`);
    // one that dies at once will die again: stop rather than fork in a loop
    if (lived < 5000) {
      console.error('[web] a worker died within 5 s of starting: stopping');
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      if (started.size === 0) process.exit(1);
      return;
    }
    fork();
  });
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, () => {
      stopping = true;
      const alive = Object.values(cluster.workers ?? {}).filter(Boolean);
      if (alive.length === 0) process.exit(0);
      for (const w of alive) w.process.kill('SIGTERM');
    });
  }
  console.log(`[web] ${n} processes on port ${config.port}`);
}

/** The files under `dir` as URL paths ('/favicon.ico', '/assets/app-x.css'). */
function filesUnder(dir, prefix = '') {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, `${prefix}/${e.name}`) : [`${prefix}/${e.name}`]);
}

/**
 * The request log's lines, written once per turn of the event loop rather than once per request:
 * stdout is a pipe under `npm start` and the container, and a write to a pipe is a blocking
 * system call (and a read for whoever reads it).
 */
function batchedLog(out) {
  let lines = [];
  const flush = () => {
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    out.write(text);
  };
  process.on('exit', flush);
  return {
    write(line) {
      if (lines.push(line) === 1) setImmediate(flush);
    },
  };
}

async function serve() {
  // Routes not handed the load context still learn the client's address: it travels as a header
  // that only this server sets (after removing whatever the client sent under that name). Set
  // before the build is imported, so the app's environment sees it from the start.
  process.env.CLIENT_IP_HEADER = 'x-broker-client-ip';
  const [{ default: express }, { default: compression }, { default: morgan }, { createRequestHandler }] = await Promise.all([
    import('express'), import('compression'), import('morgan'), import('@remix-run/express'),
  ]);
  const here = path.dirname(url.fileURLToPath(import.meta.url));
  // `--dev` (npm run dev): the app from Vite's dev server (hot reload), behind this same server
  const vite = config.dev ? await import('vite').then((v) => v.createServer({ server: { middlewareMode: true } })) : undefined;
  const buildPath = path.resolve(here, process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'build/server/index.js');
  // route matching memoized before Remix first matches (route-matching.mjs)
  installRouteMatching(createRequire(import.meta.url)('@remix-run/router'));
  // every loader and action behind the declaration of its route (app/modules/auth/route-gate.server.ts)
  const guard = (raw) => raw.entry.module.guardBuild(raw);
  const build = vite
    ? async () => guard(await vite.ssrLoadModule('virtual:remix/server-build'))
    : guard(await import(url.pathToFileURL(buildPath).href));
  const clientDir = path.resolve(path.dirname(buildPath), '..', 'client');
  // what one request reads once and all its loaders share (app/shared/request-scope.server.ts)
  const scope = (globalThis.__brokerRequestScope ??= new AsyncLocalStorage());

  const app = express();
  app.disable('x-powered-by');
  // `//admin//users` is `/admin/users`: the same route, the same guard (route-matching.mjs)
  app.use((req, _res, next) => {
    const merged = mergeSlashes(req.url);
    if (merged !== req.url && req.url.startsWith('/')) req.url = req.originalUrl = merged;
    next();
  });
  if (config.trustProxy !== undefined) app.set('trust proxy', config.trustProxy);
  // The built files are compressed at zlib's default level, as ever. The pages the app renders are
  // compressed at PAGE_COMPRESSION_LEVEL: on the dashboard's 64 kB of HTML level 6 cost about
  // three times the CPU of level 4 for 5% fewer bytes (15.6 against 16.4 kB), more than any
  // loader. Each request's choice is by path: under /assets, or one of the other built files.
  const rootFiles = vite ? new Set() : new Set(filesUnder(clientDir).filter((f) => !f.startsWith('/assets/')).flatMap((f) => [f, encodeURI(f)]));
  const isFile = (req) => req.path.startsWith('/assets/') || rootFiles.has(req.path);
  const compressFiles = compression();
  const compressPages = compression({ level: PAGE_COMPRESSION_LEVEL });
  app.use((req, res, next) => (isFile(req) ? compressFiles : compressPages)(req, res, next));
  if (vite) app.use(vite.middlewares);
  // Vite fingerprints everything under /assets: cache it for good
  else app.use('/assets', express.static(path.join(clientDir, 'assets'), { immutable: true, maxAge: '1y' }));
  // the other built files (public/: the favicon): looked for on disk only when the path is one of them
  const serveRoot = express.static(clientDir, { maxAge: '1h' });
  app.use((req, res, next) => (rootFiles.has(req.path) ? serveRoot(req, res, next) : next()));
  app.use(morgan('tiny', { stream: batchedLog(process.stdout) }));
  app.use((req, _res, next) => {
    req.headers['x-broker-client-ip'] = (req.ip ?? req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    scope.run(new Map(), next);
  });
  // sign-in, sign-up and forgot password for visitors: rendered once per language (page-cache.mjs)
  if (!vite) app.use(visitorPageCache());
  app.all('*', createRequestHandler({
    build,
    mode: vite ? 'development' : build.mode,
    getLoadContext: (req) => ({ clientIp: req.ip ?? req.socket.remoteAddress }),
  }));

  const { port, host } = config;
  const listening = () => { if (!cluster.isWorker) console.log(`[web] http://${host ?? 'localhost'}:${port}`); };
  const server = host ? app.listen(port, host, listening) : app.listen(port, listening);
  let closing = false;
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      server.close(() => process.exit(0));
    });
  }
}
