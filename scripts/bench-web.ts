// `npm run bench:web`: how fast the web tier serves pages, against a static asset from the same
// server as the reference. Starts the stack as `npm start` does (production build, demo data) on
// free ports with a database of its own, signs in as the demo customer, then drives each page
// with BENCH_CONNECTIONS (20) keep-alive connections for BENCH_SECONDS (10) and prints one JSON
// line: requests/s and p99 per page, and each page's ratio to the static asset's rate.
//
//   npm run bench:web                       one web process
//   WEB_CONCURRENCY=2 npm run bench:web     two (Node's cluster behind the one port)
//   BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_VERBOSE=1 (the stack's output)
import http from 'node:http';
import { readdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild, stopChild, waitForHttp } from './lib/processes.ts';
import { repoRoot, startEmbeddedPostgres, createDatabase, dropDatabase, withDatabase, freePort, type PostgresServer } from './lib/postgres.ts';
import { DEMO_PASSWORD } from '../seeds/demo-users.ts';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmupSeconds = 2;

interface Result { rps: number; p99_ms: number; p50_ms: number; requests: number; errors: number }

/** Drives one URL with `connections` keep-alive connections: each sends its next request when the last answered. */
async function drive(base: string, pathname: string, headers: Record<string, string>, durationS: number): Promise<Result> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const url = new URL(pathname, base);
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + durationS * 1000;
  const one = () => new Promise<void>((resolve) => {
    const t0 = process.hrtime.bigint();
    const req = http.get(url, { agent, headers: { 'accept-encoding': 'gzip', ...headers } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => {
        if (res.statusCode === 200) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        else errors++;
        resolve();
      });
    });
    req.on('error', () => { errors++; resolve(); });
  });
  const started = Date.now();
  await Promise.all(Array.from({ length: connections }, async () => { while (Date.now() < end) await one(); }));
  const elapsed = (Date.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] : 0;
  return { rps: round(latencies.length / elapsed), p99_ms: round(pct(0.99)), p50_ms: round(pct(0.5)), requests: latencies.length, errors };
}

const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

/** The session cookie of a sign-in through the sign-in form. */
async function signIn(base: string, email: string): Promise<string> {
  const res = await fetch(`${base}/?index`, {
    method: 'POST', redirect: 'manual',
    headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password: DEMO_PASSWORD }),
  });
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  if (res.status !== 302 || !cookie) throw new Error(`sign-in as ${email} answered ${res.status}: ${await res.text()}`);
  return cookie;
}

async function main() {
  const out = mkdtempSync(path.join(os.tmpdir(), 'broker-bench-web-'));
  let server: PostgresServer | undefined;
  let adminUrl: string;
  if (process.env.DATABASE_URL) adminUrl = withDatabase(process.env.DATABASE_URL, 'postgres');
  else {
    server = await startEmbeddedPostgres({ dataDir: path.join(out, 'pg'), port: await freePort(), persistent: false, fast: true });
    adminUrl = server.adminUrl;
  }
  const dbName = `broker_bench_web_${process.pid}`;
  await createDatabase(adminUrl, dbName, { dropFirst: true });
  const [webPort, enginePort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${webPort}`;
  const env = {
    ...process.env,
    DATABASE_URL: withDatabase(adminUrl, dbName),
    WEB_PORT: String(webPort), ENGINE_PORT: String(enginePort), ENGINE_URL: `http://127.0.0.1:${enginePort}`,
  };
  const stack = startChild('stack', process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: repoRoot, env, quiet: !process.env.BENCH_VERBOSE });
  try {
    const alive = () => stack.proc.exitCode === null;
    await waitForHttp(`http://127.0.0.1:${enginePort}/v1/health`, 240_000, alive);
    await waitForHttp(`${base}/`, 240_000, alive);
    const css = readdirSync(path.join(repoRoot, 'web', 'build', 'client', 'assets')).find((f) => f.endsWith('.css'));
    if (!css) throw new Error('no stylesheet in web/build/client/assets');
    const cookie = await signIn(base, 'alice@demo.broker');
    const targets: [string, string, Record<string, string>][] = [
      ['static', `/assets/${css}`, {}],
      ['signin', '/', {}],
      ['dashboard', '/dashboard', { cookie }],
      ['statements', '/statements', { cookie }],
    ];
    const results: Record<string, Result & { path: string; ratio?: number }> = {};
    for (const [name, pathname, headers] of targets) {
      await drive(base, pathname, headers, warmupSeconds);
      results[name] = { path: pathname, ...(await drive(base, pathname, headers, seconds)) };
      // a page that answers other than 200 (a redirect to sign-in, a 500) measures nothing
      if (results[name].errors > results[name].requests / 100) throw new Error(`${pathname}: ${results[name].errors} answers were not 200`);
    }
    for (const name of ['signin', 'dashboard', 'statements']) results[name].ratio = round(results[name].rps / results.static.rps, 3);
    console.log(JSON.stringify({
      connections, seconds, web_processes: Number(process.env.WEB_CONCURRENCY || 1), ...results,
      target: { signin_ratio: 0.3, dashboard_ratio: 0.1 },
    }));
  } catch (e) {
    for (const line of stack.recent) console.error(`  [stack] ${line}`);
    throw e;
  } finally {
    await stopChild(stack, 15_000);
    await dropDatabase(adminUrl, dbName).catch(() => {});
    await server?.stop().catch(() => {});
    rmSync(out, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
