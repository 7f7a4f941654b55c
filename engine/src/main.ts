// Engine entry point: wiring per role, listening, clean shutdown.
//   all  (default) feed + core + HTTP/SSE in one process, in-process bus unless REDIS_URL
//   feed  ticks to the bus only
//   core  book, risk, orders, HTTP/SSE; ticks from the bus (REDIS_URL); publishes realtime events
//   gateway  only /v1/stream (+ /v1/health, /v1/metrics): prices from the feed's ticks and user,
//         track and heartbeat events from the bus (REDIS_URL); as many as the browsers need
import { loadConfig } from './config.ts';
import { connect } from './db.ts';
import { createApp } from './http/app.ts';
import { createBus } from './bus/index.ts';
import { Core } from './core.ts';
import { TICKS, EVENTS, type RealtimeEvent } from './bus/streams.ts';
import { HEARTBEAT_EVENT } from './contract/events.ts';
import { Hub } from './realtime/hub.ts';
import { Gateway } from './realtime/gateway.ts';
import { loadInstruments, type Instrument, type Tick } from './book/book.ts';
import { Simulator } from './feed/simulator.ts';
import { backfill } from './feed/backfill.ts';
import type { FeedProvider, Heartbeat } from './feed/feed.ts';
import { FeedManager } from './feed/providers/manager.ts';
import { secretsKey } from './contract/secrets.ts';
import { PartitionLeases } from './partitions.ts';

const config = loadConfig();
const sql = connect(config.DATABASE_URL, { max: config.DATABASE_POOL });
const bus = createBus(config.REDIS_URL, {
  // REDIS_PREFIX names the keys outright; else a cluster other than 'default' prefixes them with its name
  prefix: config.REDIS_PREFIX || (config.ENGINE_CLUSTER === 'default' ? '' : `${config.ENGINE_CLUSTER}:`),
  // ticks are kept by age, long enough for a partition takeover to replay what was missed
  retainMs: { [TICKS]: config.TICK_RETENTION_MS },
});
const role = config.ENGINE_ROLE;
const log = (m: string) => console.log(`[engine] ${m}`);
if (role !== 'all' && bus.kind === 'memory') log(`warning: ENGINE_ROLE=${role} without REDIS_URL: no other process can reach this one's bus`);

const feeds: FeedProvider[] = [];
let manager: FeedManager | undefined;
let core: Core | undefined;
let hub: Hub | undefined;
let leases: PartitionLeases | undefined;
let leaseSql: ReturnType<typeof connect> | undefined;
let gateway: Gateway | undefined;

if (role === 'all' || role === 'core') {
  const partition = { count: config.ENGINE_PARTITIONS, index: config.ENGINE_PARTITION };
  if (partition.count > 1 && bus.kind === 'memory') log('warning: ENGINE_PARTITIONS > 1 without REDIS_URL: the other partitions never hear of this one\'s orders');
  // failover: several core processes over Redis share the partitions as leases (partitions.ts);
  // one process (ENGINE_ROLE=all) or the in-process bus keeps its fixed partition, as before
  const leased = role === 'core' && bus.kind === 'redis' && config.ENGINE_FAILOVER === '1';
  core = new Core({ sql, bus, partition, priceMaxAgeMs: config.PRICE_MAX_AGE_MS, leased,
    closeBatchSize: config.CLOSE_BATCH_SIZE, closeBatchConcurrency: config.CLOSE_BATCH_CONCURRENCY });
  await core.start();
  if (leased) {
    leaseSql = connect(config.DATABASE_URL, { max: 2 });
    leases = new PartitionLeases({ sql: leaseSql, core, cluster: config.ENGINE_CLUSTER, owner: core.ownerName, prefer: partition.index, log });
    await leases.start();
  }
  hub = new Hub(bus);
  const h = hub;
  core.onQuote((q) => h.onQuote(q));
  log(`core: ${core.book.instruments.size} instruments, ${core.risk.openPositions} open positions rebuilt` +
    (leased ? ` (partitions leased: owns ${[...core.owned].join(', ') || 'none yet'} of ${partition.count}, cluster ${config.ENGINE_CLUSTER})`
      : partition.count > 1 ? ` (partition ${partition.index} of ${partition.count})` : ''));
}

if (role === 'gateway') {
  gateway = new Gateway({ sql, bus });
  await gateway.start();
  log(`gateway: ${gateway.book.instruments.size} instruments, streams fed from the bus`);
}

if (role === 'all' || role === 'feed') {
  const { list, quotes } = await loadInstruments(sql);
  const prices = new Map(quotes.map((q) => [q.name, (q.bid + q.ask) / 2]));
  const emit = (t: Tick) => void bus.publish(TICKS, t).catch(() => {});
  const beat = (h: Heartbeat) => void bus.publish<RealtimeEvent>(EVENTS, { topic: 'heartbeat', event: HEARTBEAT_EVENT, data: h }).catch(() => {});
  const sim = new Simulator({ instruments: [], prices, seed: config.FEED_SEED, ticksPerSecond: config.FEED_TICKS_PER_SECOND });
  // with real providers the status rows are theirs (or the manager's 'not configured'): the
  // simulator's own heartbeats would claim a row no provider serves
  const simBeat = config.FEED === 'providers' ? () => {} : beat;
  let simStarted = false;
  // the simulator serves every instrument no provider serves: at start, after a provider
  // settings change (a key added or removed) and after staff add, edit or delete instruments
  const simulate = async (all: Instrument[]) => {
    const served = manager?.assignment() ?? new Map<string, string>();
    const mine = all.filter((i) => !served.has(i.name));
    const { quotes: q } = await loadInstruments(sql);
    for (const x of q) if (!prices.has(x.name)) prices.set(x.name, (x.bid + x.ask) / 2);
    sim.setInstruments(mine, prices);
    if (mine.length && !simStarted) { simStarted = true; feeds.push(sim); await sim.start(emit, simBeat); }
    return mine.length;
  };
  if (config.FEED === 'providers') {
    manager = new FeedManager({
      sql, secretsKey: secretsKey(config.SECRETS_KEY), emit, heartbeat: beat, log,
      instruments: async () => {
        const byCategory: Record<string, string[]> = {};
        for (const i of (await loadInstruments(sql)).list) (byCategory[i.category] ??= []).push(i.name);
        return byCategory;
      },
      onUncovered: async () => { await simulate((await loadInstruments(sql)).list); },
      // conversions no live quote covers (an exotic wallet currency) come from the currency API
      onCurrency: (api) => { if (core) core.book.setFallbackRate(api ? (f, t) => api.rate(f, t) : () => undefined); },
    });
    await manager.start();
    await manager.listen();
  }
  const simulated = await simulate(list);
  // first start: prices for the backfill come from the simulator's first round
  for (const t of sim.step(Date.now())) if (!prices.has(t.symbol)) prices.set(t.symbol, (t.bid + t.ask) / 2);
  void backfill(sql, list, prices, { seed: config.FEED_SEED }).then(
    (n) => n && log(`backfilled ${n} candles`), (e) => console.error('[engine] backfill', e.message));
  log(`feed: simulator for ${simulated} instruments at ${config.FEED_TICKS_PER_SECOND} ticks/s, seed ${config.FEED_SEED}`);

  // instruments added, edited or deleted by staff reach the feed without a restart: with real
  // providers the plan is made again (an adapter whose instruments changed restarts, the rest is
  // simulated), else the simulator takes the new list
  const applyInstruments = async (all: Instrument[]) => { if (manager) await manager.reload(); else await simulate(all); };
  if (core) core.onInstruments((all) => void applyInstruments(all).catch((e) => console.error('[engine] instruments', e.message)));
  else {
    let pending: ReturnType<typeof setTimeout> | undefined;
    await sql.listen('engine_cache', (payload) => {
      if (!payload.includes('"instrument"') || pending) return;
      pending = setTimeout(() => {
        pending = undefined;
        loadInstruments(sql).then(({ list: all }) => applyInstruments(all)).catch((e) => console.error('[engine] instruments', e.message));
      }, 50);
    });
  }
}

const app = createApp({
  sql, core, bus, hub, gateway, secret: config.ENGINE_SECRET, testControls: config.ENGINE_TEST_CONTROLS === '1',
  partitions: leases ? () => leases!.status() : undefined,
  feeds: () => [...(manager?.providers() ?? []), ...feeds].map((f) => f.status()),
}).listen({ hostname: config.ENGINE_HOST, port: config.ENGINE_PORT, idleTimeout: 0 });

log(`listening on http://${config.ENGINE_HOST}:${app.server?.port} (role ${role}, bus ${bus.kind})`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping`);
  for (const f of feeds) await f.stop();
  await manager?.stop();
  hub?.close();
  await gateway?.stop();
  await app.stop();
  await leases?.stop();
  await core?.stop();
  await leaseSql?.end({ timeout: 2 });
  await bus.close();
  await sql.end({ timeout: 5 });
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
