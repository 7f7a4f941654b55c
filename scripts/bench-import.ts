// `npm run bench:import`: the CSV lead import at 100,000 rows (BENCH_ROWS). Generates a CSV of
// realistic leads (names, e-mails, UK/DE/ES/FR phones in national and international spellings)
// with ~2 % duplicates (an earlier row's e-mail in another case, or its phone in another spelling)
// and ~1 % bad rows, imports it into a scratch database (created, migrated, dropped) through the
// real job code (queueImport: the header and row count; claimImport + runImport: the batches),
// and as the reference COPYs the same file into a bare table in the same run. Prints ONE JSON line
// (progress on stderr). DATABASE_URL's server is used (else the embedded one).
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { openAppDatabase } from './lib/database.ts';
import { createDatabase, dropDatabase, migrate, withDatabase } from './lib/postgres.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const log = (l: string) => process.stderr.write(`[bench:import] ${l}\n`);

// ------------------------------------------------------------------ the file

const FIRST = ['James', 'Olivia', 'Liam', 'Emma', 'Noah', 'Amelia', 'Oliver', 'Isla', 'Lukas', 'Mia', 'Hugo', 'Léa', 'Mateo', 'Lucía', 'Zoë', 'Jürgen', 'Sofia', 'Aarav', 'Chloé', 'Pablo'];
const LAST = ['Smith', 'Jones', 'Taylor', 'Brown', 'Müller', 'Schmidt', 'García', 'Martínez', 'Dubois', 'Lefèvre', 'Williams', "O'Connor", 'Wilson', 'Rossi', 'Novak', 'Fernández', 'Schneider', 'Moreau', 'Evans', 'Patel'];
const DOMAINS = ['gmail.com', 'yahoo.co.uk', 'outlook.com', 'gmx.de', 'hotmail.es', 'orange.fr', 'proton.me'];
const CITIES: Record<string, string[]> = { GB: ['London', 'Leeds', 'Bristol'], DE: ['Berlin', 'München', 'Köln'], ES: ['Madrid', 'Sevilla'], FR: ['Paris', 'Lyon'] };
// mulberry32: the same file every run
let seed = 42;
const rand = () => { seed = (seed + 0x6d2b79f5) | 0; let t = Math.imul(seed ^ (seed >>> 15), 1 | seed); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const rnd = (n: number) => Math.floor(rand() * n);
const pick = <T>(a: T[]) => a[rnd(a.length)];
const digits = (n: number) => Array.from({ length: n }, () => rnd(10)).join('');
const q = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

interface Gen { first: string; last: string; email: string; phone: string; intl: string; country: string }
function phone(country: string, i: number): { national: string; intl: string } {
  const u = String(i).padStart(7, '0'); // unique per row
  switch (country) {
    case 'GB': { const r = `${digits(2)}${u}`; return { national: `07${r.slice(0, 3)} ${r.slice(3)}`, intl: `+44 7${r.slice(0, 3)} ${r.slice(3)}` }; }
    case 'DE': { const r = `${digits(1)}${u}`; return { national: `0151 ${r}`, intl: `+49 151 ${r}` }; }
    case 'ES': { const r = `${digits(1)}${u}`; return { national: `6${r.slice(0, 2)} ${r.slice(2)}`, intl: `+34 6${r}` }; }
    default: { const r = `${digits(1)}${u}`; return { national: `06 ${r.slice(0, 2)} ${r.slice(2)}`, intl: `+33 6 ${r}` }; }
  }
}

function generate(file: string): { dupes: number; bad: number } {
  const lines = ['firstName,lastName,email,phone,country,city'];
  const made: Gen[] = [];
  let dupes = 0, bad = 0;
  for (let i = 1; i <= ROWS; i++) {
    const k = rnd(100);
    if (k < 2 && made.length > 10) {
      const o = made[rnd(made.length)];
      dupes++;
      lines.push(k === 0
        ? [o.first, o.last, ` ${o.email.toUpperCase()} `, phone(o.country, ROWS + i).national, o.country, ''].map(q).join(',')
        : [pick(FIRST), pick(LAST), `x${i}.${o.email}`, o.intl, o.country, ''].map(q).join(','));
      continue;
    }
    if (k === 2) {
      bad++;
      const r = rnd(3);
      lines.push(r === 0 ? `${pick(FIRST)},${pick(LAST)},not-an-email-${i},07700 900123,GB,`
        : r === 1 ? `${pick(FIRST)},${pick(LAST)},bad${i}@example.com,12,GB,` : `,${pick(LAST)},nofirst${i}@example.com,07700 900124,Atlantis,`);
      continue;
    }
    const country = pick(['GB', 'GB', 'DE', 'ES', 'FR']);
    const first = pick(FIRST), last = pick(LAST);
    const email = `${first}.${last}.${i}@${pick(DOMAINS)}`.toLowerCase().replace(/[^a-z0-9.@-]/g, '');
    const p = phone(country, i);
    made.push({ first, last, email, phone: p.national, intl: p.intl, country });
    lines.push([first, last, email, rnd(2) ? p.national : p.intl, rnd(4) ? country : ({ GB: 'United Kingdom', DE: 'Germany', ES: 'Spain', FR: 'France' } as Record<string, string>)[country], pick(CITIES[country])].map(q).join(','));
  }
  writeFileSync(file, lines.join('\n') + '\n');
  return { dupes, bad };
}

// ------------------------------------------------------------------ the run

const { url: appUrl, server } = await openAppDatabase(log);
const name = `bench_import_${process.pid}`;
await createDatabase(appUrl, name, { dropFirst: true });
const url = withDatabase(appUrl, name);
process.env.DATABASE_URL = url;
const dir = mkdtempSync(path.join(tmpdir(), 'bench-import-'));
const sql = postgres(url, { max: 4, onnotice: () => {} });
try {
  log('migrating the scratch database');
  await migrate(url);
  const stored = `${randomBytes(16).toString('hex')}.csv`;
  const file = path.join(dir, stored);
  log(`generating ${ROWS} rows`);
  const gen = generate(file);
  const size = statSync(file).size;
  const [u] = await sql`INSERT INTO users (email, password_hash, full_name, role_id, is_active, is_email_verified)
                        VALUES (${`bench-${process.pid}@example.com`}, 'x', 'Bench Admin', 1, true, true) RETURNING id`;
  const [up] = await sql`INSERT INTO uploads (owner_id, kind, original_name, stored_name, mime, size, sha256)
                         VALUES (${u.id}, 'lead_csv', 'bench.csv', ${stored}, 'text/csv; charset=utf-8', ${size}, ${'0'.repeat(64)}) RETURNING id`;
  const { queueImport, claimImport, runImport } = await import('../web/app/modules/crm/import.server.ts');

  log('importing through the job');
  const t0 = performance.now();
  const queued = await queueImport(sql as never, { id: Number(u.id) }, { id: Number(up.id) }, { dir });
  if (!queued.ok) throw new Error(queued.message);
  const id = await claimImport(sql as never, 'bench');
  if (id !== queued.id) throw new Error('the import was not claimed');
  await runImport(sql as never, id, 'bench', { dir });
  const seconds = (performance.now() - t0) / 1000;
  const [r] = await sql`SELECT status, message, rows_read, created, duplicates, errors FROM lead_imports WHERE id = ${id}`;
  if (r.status !== 'done') throw new Error(`the import ended ${r.status}: ${r.message}`);

  log('COPY of the same file into a bare table');
  await sql`CREATE TABLE bench_copy (first_name text, last_name text, email text, phone text, country text, city text)`;
  const c0 = performance.now();
  await pipeline(createReadStream(file), await sql`COPY bench_copy FROM STDIN (FORMAT csv, HEADER true)`.writable());
  const copySeconds = (performance.now() - c0) / 1000;
  const [{ n: copied }] = await sql`SELECT count(*)::int AS n FROM bench_copy`;

  const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
  console.log(JSON.stringify({
    rows: r.rows_read, seconds: round(seconds), rows_per_s: Math.round(r.rows_read / seconds),
    created: r.created, duplicates: r.duplicates, errors: r.errors,
    generated: { duplicates: gen.dupes, bad: gen.bad }, file_bytes: size,
    copy: { rows: copied, seconds: round(copySeconds, 3), rows_per_s: Math.round(copied / copySeconds) },
    ratio_vs_copy: round(seconds / copySeconds, 1), target_seconds: 60, within_target: seconds < 60,
  }));
} finally {
  await sql.end();
  await dropDatabase(appUrl, name).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
}
