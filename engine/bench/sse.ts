// bench:sse — BENCH_CLIENTS (default 2,000; 10,000 is the scale-out target) SSE clients on
// loopback, subscribed to prices, on ONE gateway process (ENGINE_ROLE=gateway) while 60
// instruments tick 10 times a second. The bench is the feed: it publishes the ticks to the Redis
// stream the gateway reads (BENCH_REDIS_URL, else REDIS_URL, else 127.0.0.1:6379, under a key
// prefix of its own). Prices are coalesced to ≤ 4 messages a second per client.
//   p50_ms, p99_ms      tick-to-receipt: for each message a client receives, the age of its
//                       freshest tick, from the gateway's receipt of it off the bus to the
//                       client's read (the engine's `t`)
//   bus_p50_ms, bus_p99_ms  the bus hop before that: a tick's publish to its XREAD by a reader
//                       like the gateway's (in this process)
//   quote_age_*         the age of every quote carried (includes the coalescing wait)
//   rss_mb              the gateway's resident memory with every client connected
// BENCH_ROLE=core runs the previous set-up instead (one core process, ticks through
// /v1/test/quotes, ages from the core's ingest). The clients run in several processes
// (BENCH_CLIENT_PROCS) so that reading is not the bottleneck.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { freshDatabase, startEngine, SECRET } from './support.ts';
import { signTicket } from '../src/contract/ticket.ts';
import { RedisBus } from '../src/bus/redis.ts';
import { TICKS } from '../src/core.ts';
import { percentile } from './stats.ts';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2000);
const ROLE = process.env.BENCH_ROLE ?? 'gateway';
const INSTRUMENTS = 60;
const HZ = 10;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const PORT = Number(process.env.BENCH_PORT ?? 4312);
const REDIS = process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `bench-sse-${process.pid}:`;

// file descriptors: the gateway holds one per client, each client process one per its clients.
// Children start through `ulimit -n <hard limit>` (support.ts's startEngine and the client
// spawns below); the hard limit itself can only be raised by root.
const hard = spawnSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).stdout.trim();
const fdLimit = hard === 'unlimited' ? Infinity : Number(hard);
if (fdLimit < CLIENTS + 200) {
  console.error(`[bench] ulimit -Hn is ${hard}: too few file descriptors for ${CLIENTS} connections in one gateway (raise it as root)`);
  process.exit(1);
}
const raised = (cmd: string[]) => ['sh', '-c', `ulimit -n ${hard} 2>/dev/null; exec "$@"`, 'sh', ...cmd];

const db = await freshDatabase(`bench_sse_${process.pid}`);
const { sql } = db;
const names = Array.from({ length: INSTRUMENTS }, (_, i) => `SSE${i}_USD`);
for (const n of names) await sql`INSERT INTO instruments (name, base, quote, category) VALUES (${n}, ${n.split('_')[0]}, 'USD', 'crypto')`;
const [u] = await sql`INSERT INTO users (email, password_hash, full_name, role_id) VALUES ('sse@bench.local', 'x', 'Bench', 3) RETURNING id`;
const [s] = await sql`INSERT INTO sessions (token_hash, user_id, expires_at) VALUES ('bench', ${u.id}, now() + interval '1 hour') RETURNING id`;
const ticket = signTicket(SECRET, { uid: Number(u.id), role: 3, sid: Number(s.id) }, 3600);

const bus = ROLE === 'gateway' ? RedisBus.connect(REDIS, { prefix: PREFIX }) : undefined;
const engine = ROLE === 'gateway'
  ? await startEngine({ DATABASE_URL: db.url, ENGINE_ROLE: 'gateway', REDIS_URL: REDIS, REDIS_PREFIX: PREFIX, }, PORT, { fds: hard })
  : await startEngine({ DATABASE_URL: db.url, ENGINE_ROLE: 'core' }, PORT, { fds: hard });
const busLag: number[] = [];
const stopLag = bus?.subscribe<{ ts: number }>(TICKS, (m) => { if (Date.now() >= measureFrom && Date.now() < measureTo) busLag.push(Date.now() - m.data.ts); });
const base = `http://127.0.0.1:${PORT}/v1`;
const headers = { 'content-type': 'application/json', 'x-engine-secret': SECRET };

// the clients: several processes, so that reading 40,000 messages a second is not the bottleneck
const PROCS = Number(process.env.BENCH_CLIENT_PROCS ?? Math.max(4, Math.ceil(CLIENTS / 2500)));
let measureFrom = Infinity, measureTo = Infinity;
const procs = Array.from({ length: PROCS }, (_, p) => Bun.spawn(raised([process.execPath, `${import.meta.dir}/sse-client.ts`]), {
  env: {
    ...process.env, BASE: base, TICKET: ticket, CLIENTS: String(Math.floor(CLIENTS / PROCS) + (p < CLIENTS % PROCS ? 1 : 0)),
    BUN_CONFIG_MAX_HTTP_REQUESTS: '65535',
  },
  stdin: 'pipe', stdout: 'pipe', stderr: 'inherit',
}));

// BENCH_NICE=<n> (root only): run the gateway, the clients and this feed at that priority. On a
// machine shared with other work the scheduler gives each runnable process its share of the
// cores, and a gateway that needs a core's half gets a fraction of it: latency then measures the
// neighbours. The output says which priority the run had.
const NICE = process.env.BENCH_NICE;
if (NICE) {
  const r = spawnSync('renice', ['-n', NICE, '-p', String(process.pid), String(engine.pid), ...procs.map((p) => String(p.pid))], { encoding: 'utf8' });
  if (r.status !== 0) console.error(`[bench] renice ${NICE} failed: ${r.stderr.trim()}`);
}

// the feed: every instrument ticks HZ times a second, staggered (a tenth of them every 10 ms);
const SLOTS = 10;
let price = 100, seq = 0;
const ticker = setInterval(() => {
  const slot = seq++ % SLOTS;
  price += Math.sin(seq) * 0.01;
  const body = names.filter((_, k) => k % SLOTS === slot)
    .map((n, k) => ({ symbol: n, bid: +(price + k).toFixed(5), ask: +(price + k + 0.01).toFixed(5) }));
  if (bus) for (const t of body) void bus.publish(TICKS, { ...t, ts: Date.now() }).catch(() => {});
  else void fetch(`${base}/test/quotes`, { method: 'POST', headers, body: JSON.stringify(body) }).then((r) => r.arrayBuffer());
}, 1000 / HZ / SLOTS);

// the measured window opens 2 s after every client is connected (each checked its ticket and
// session, as a browser's stream is)
const metricValue = async (name: string) => {
  const text = await fetch(`${base}/metrics`).then((r) => r.text()).catch(() => '');
  return Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? 0);
};
const connectStart = Date.now();
while (Date.now() - connectStart < 120_000 && (await metricValue('engine_sse_clients')) < CLIENTS) await Bun.sleep(250);
const connect_s = +((Date.now() - connectStart) / 1000).toFixed(1);
measureFrom = Date.now() + 2000;
measureTo = measureFrom + SECONDS * 1000;
for (const p of procs) { p.stdin.write(`${measureFrom} ${measureTo}\n`); await p.stdin.flush(); }

// the gateway's CPU time over the measured window (utime + stime, in clock ticks)
const cpuTicks = () => readFileSync(`/proc/${engine.pid}/stat`, 'utf8').split(') ')[1].split(' ').slice(11, 13).reduce((a, x) => a + Number(x), 0);
await Bun.sleep(Math.max(0, measureFrom - Date.now()));
const cpu0 = cpuTicks(), at0 = Date.now();
await Bun.sleep(Math.max(0, measureTo - Date.now() - 200));
const gatewayCpuPct = Math.round(((cpuTicks() - cpu0) / 100) / ((Date.now() - at0) / 1000) * 100);
const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${engine.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024; // with every client connected
const scrape = ROLE === 'gateway' ? await fetch(`${base}/metrics`).then((r) => r.text()).catch(() => '') : '';
const counter = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(scrape)?.[1] ?? NaN);
const outputs = await Promise.all(procs.map(async (p) => JSON.parse(await new Response(p.stdout).text())));
clearInterval(ticker);
const fresh: number[] = outputs.flatMap((o) => o.fresh);
const ages: number[] = outputs.flatMap((o) => o.ages);
const messages = outputs.reduce((a, o) => a + o.messages, 0);
const connected = outputs.reduce((a, o) => a + o.connected, 0);
engine.kill('SIGKILL');
stopLag?.();
if (bus) {
  await Bun.sleep(100);
  const r = (bus as unknown as { redis: import('ioredis').default }).redis;
  await r.del(`${PREFIX}${TICKS}`, `${PREFIX}events`).catch(() => {});
  await bus.close();
}
await sql.end();
await db.drop();

fresh.sort((a, b) => a - b);
ages.sort((a, b) => a - b);
busLag.sort((a, b) => a - b);
const big = CLIENTS > 2000;
console.log(JSON.stringify({
  bench: 'sse', role: ROLE, ...(NICE ? { nice: Number(NICE) } : {}), load_avg: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]), clients: CLIENTS, connected, client_procs: PROCS, instruments: INSTRUMENTS, ticks_per_s: INSTRUMENTS * HZ, seconds: SECONDS,
  p50_ms: +percentile(fresh, 50).toFixed(1), p99_ms: +percentile(fresh, 99).toFixed(1),
  ...(bus ? { bus_p50_ms: percentile(busLag, 50), bus_p99_ms: percentile(busLag, 99) } : {}),
  quote_age_p50_ms: +percentile(ages, 50).toFixed(1), quote_age_p99_ms: +percentile(ages, 99).toFixed(1),
  messages_per_s: Math.round(messages / SECONDS), per_client_msgs_per_s: +(messages / SECONDS / CLIENTS).toFixed(2),
  ...(scrape ? { server_msgs: counter('engine_sse_messages_total'), server_skipped_rounds: counter('engine_sse_rounds_skipped_total') } : {}),
  connect_s, rss_mb: Math.round(rss), engine_cpu_pct: gatewayCpuPct,
  clients_cpu_pct: Math.round(outputs.reduce((a, o) => a + o.cpu_s, 0) / SECONDS * 100),
  target: big ? { p99_ms: 200, rss_mb: 1024 } : { p99_ms: 100, rss_mb: 500 },
}));
process.exit(0);
