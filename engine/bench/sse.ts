// bench:sse — 2,000 SSE clients on loopback subscribed to prices while 60 instruments tick
// 10 times a second. Latency is measured from the engine's ingest of a tick to a client
// receiving it. Prices are coalesced to ≤ 4 messages a second per client, so for each message
// we take its freshest tick (p50_ms, p99_ms: how stale the newest price a client sees is) and
// also report the age of every quote carried (quote_age_*: includes the coalescing wait).
import { readFileSync } from 'node:fs';
import { freshDatabase, startEngine, SECRET } from './support.ts';
import { signTicket } from '../src/contract/ticket.ts';
import { percentile } from './stats.ts';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2000);
const INSTRUMENTS = 60;
const HZ = 10;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const PORT = Number(process.env.BENCH_PORT ?? 4312);

const db = await freshDatabase(`bench_sse_${process.pid}`);
const { sql } = db;
const names = Array.from({ length: INSTRUMENTS }, (_, i) => `SSE${i}_USD`);
for (const n of names) await sql`INSERT INTO instruments (name, base, quote, category) VALUES (${n}, ${n.split('_')[0]}, 'USD', 'crypto')`;
const [u] = await sql`INSERT INTO users (email, password_hash, full_name, role_id) VALUES ('sse@bench.local', 'x', 'Bench', 3) RETURNING id`;
const [s] = await sql`INSERT INTO sessions (token_hash, user_id, expires_at) VALUES ('bench', ${u.id}, now() + interval '1 hour') RETURNING id`;
const ticket = signTicket(SECRET, { uid: Number(u.id), role: 3, sid: Number(s.id) }, 3600);

const engine = await startEngine({ DATABASE_URL: db.url, ENGINE_ROLE: 'core' }, PORT);
const base = `http://127.0.0.1:${PORT}/v1`;
const headers = { 'content-type': 'application/json', 'x-engine-secret': SECRET };

// the clients: several processes, so that reading 8,000 messages a second is not the bottleneck
const PROCS = Number(process.env.BENCH_CLIENT_PROCS ?? 4);
const measureFrom = Date.now() + 6000, measureTo = measureFrom + SECONDS * 1000;
const procs = Array.from({ length: PROCS }, (_, p) => Bun.spawn([process.execPath, `${import.meta.dir}/sse-client.ts`], {
  env: {
    ...process.env, BASE: base, TICKET: ticket, CLIENTS: String(Math.floor(CLIENTS / PROCS) + (p < CLIENTS % PROCS ? 1 : 0)),
    MEASURE_FROM: String(measureFrom), MEASURE_TO: String(measureTo), BUN_CONFIG_MAX_HTTP_REQUESTS: '8192',
  },
  stdout: 'pipe', stderr: 'inherit',
}));

// the feed: every instrument ticks HZ times a second, staggered (a tenth of them every 10 ms)
const SLOTS = 10;
let price = 100, seq = 0;
const ticker = setInterval(() => {
  const slot = seq++ % SLOTS;
  price += Math.sin(seq) * 0.01;
  const body = names.filter((_, k) => k % SLOTS === slot)
    .map((n, k) => ({ symbol: n, bid: +(price + k).toFixed(5), ask: +(price + k + 0.01).toFixed(5) }));
  void fetch(`${base}/test/quotes`, { method: 'POST', headers, body: JSON.stringify(body) }).then((r) => r.arrayBuffer());
}, 1000 / HZ / SLOTS);

await Bun.sleep(Math.max(0, measureTo - Date.now() - 200));
const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${engine.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024; // with every client connected
const outputs = await Promise.all(procs.map(async (p) => JSON.parse(await new Response(p.stdout).text())));
clearInterval(ticker);
const elapsed = SECONDS;
const fresh: number[] = outputs.flatMap((o) => o.fresh);
const ages: number[] = outputs.flatMap((o) => o.ages);
const messages = outputs.reduce((a, o) => a + o.messages, 0);

const connected = outputs.reduce((a, o) => a + o.connected, 0);
engine.kill('SIGKILL');
await sql.end();
await db.drop();

fresh.sort((a, b) => a - b);
ages.sort((a, b) => a - b);
console.log(JSON.stringify({
  bench: 'sse', clients: CLIENTS, connected, instruments: INSTRUMENTS, ticks_per_s: INSTRUMENTS * HZ, seconds: +elapsed.toFixed(1),
  p50_ms: +percentile(fresh, 50).toFixed(1), p99_ms: +percentile(fresh, 99).toFixed(1),
  quote_age_p50_ms: +percentile(ages, 50).toFixed(1), quote_age_p99_ms: +percentile(ages, 99).toFixed(1),
  messages_per_s: Math.round(messages / elapsed), per_client_msgs_per_s: +(messages / elapsed / CLIENTS).toFixed(2),
  rss_mb: Math.round(rss),
  target: { p99_ms: 100, rss_mb: 500 },
}));
process.exit(0);
