// Shared by the HTTP benchmarks: a throw-away database built from the migrations, and an
// engine child process on it.
import postgres from 'postgres';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';

export const root = path.resolve(import.meta.dir, '../..');
export const SECRET = 'bench-secret-0123456789abcdef';

export async function freshDatabase(name: string) {
  const admin = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const a = postgres(admin, { max: 1, onnotice: () => {} });
  await a.unsafe(`DROP DATABASE IF EXISTS ${name}`);
  await a.unsafe(`CREATE DATABASE ${name}`);
  await a.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const sql = postgres(url.toString(), { max: 4, onnotice: () => {} });
  for (const f of readdirSync(path.join(root, 'migrations')).filter((f) => f.endsWith('.sql')).sort()) {
    const text = readFileSync(path.join(root, 'migrations', f), 'utf8');
    const up = text.split('-- Down Migration')[0];
    await sql.unsafe(up);
  }
  const drop = async () => {
    const b = postgres(admin, { max: 1, onnotice: () => {} });
    await b.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await b.end();
  };
  return { sql, url: url.toString(), drop };
}

/** `opts.fds`: start it through `ulimit -n <fds>` (bench:sse's thousands of connections). */
export async function startEngine(env: Record<string, string>, port: number, opts: { fds?: string } = {}): Promise<ChildProcess> {
  const cmd = [path.join(root, 'node_modules/.bin/bun'), ...(process.env.BENCH_ENGINE_ARGS?.split(' ').filter(Boolean) ?? []), 'engine/src/main.ts'];
  const [file, ...args] = opts.fds ? ['sh', '-c', `ulimit -n ${opts.fds} 2>/dev/null; exec "$@"`, 'sh', ...cmd] : cmd;
  const child = spawn(file, args, {
    cwd: root, env: { ...process.env, ENGINE_PORT: String(port), ENGINE_SECRET: SECRET, ENGINE_TEST_CONTROLS: '1', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    try { if ((await fetch(`http://127.0.0.1:${port}/v1/health`)).ok) return child; } catch { /* not yet */ }
    await Bun.sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error('engine did not start');
}

export async function seedAccounts(sql: postgres.Sql, n: number, deposit = '100000000') {
  const ids: { userId: number; balanceId: number }[] = [];
  for (let i = 0; i < n; i++) {
    const [u] = await sql`INSERT INTO users (email, password_hash, full_name, role_id) VALUES (${`bench${i}@bench.local`}, 'x', 'Bench', 3) RETURNING id`;
    const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
    await sql`SELECT * FROM post_ledger(${b.id}, ${deposit}, 'deposit', 'bench', ${`seed-${i}`})`;
    await sql`UPDATE users SET active_balance_id = ${b.id} WHERE id = ${u.id}`;
    ids.push({ userId: Number(u.id), balanceId: Number(b.id) });
  }
  return ids;
}
