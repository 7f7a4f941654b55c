// Engine entry point: wiring per role, listening, clean shutdown.
//   all  (default) feed + core + HTTP/SSE in one process, in-process bus unless REDIS_URL
//   feed  ticks to the bus only
//   core  book, risk, orders, HTTP/SSE; ticks from the bus (REDIS_URL)
import { loadConfig } from './config.ts';
import { connect } from './db.ts';
import { createApp } from './http/app.ts';
import { createBus } from './bus/index.ts';
import { Core, TICKS, EVENTS, type RealtimeEvent } from './core.ts';
import { Hub } from './realtime/hub.ts';
import { loadInstruments, type Instrument, type Tick } from './book/book.ts';
import { Simulator } from './feed/simulator.ts';
import { backfill } from './feed/backfill.ts';
import type { FeedProvider, Heartbeat } from './feed/feed.ts';
import { createProviders, loadProviderSettings, saveCurrencyQuota, type CurrencyApi } from './feed/providers/index.ts';
import { secretsKey } from './contract/secrets.ts';

const config = loadConfig();
const sql = connect(config.DATABASE_URL, { max: config.DATABASE_POOL });
const bus = createBus(config.REDIS_URL);
const role = config.ENGINE_ROLE;
const log = (m: string) => console.log(`[engine] ${m}`);
if (role !== 'all' && bus.kind === 'memory') log(`warning: ENGINE_ROLE=${role} without REDIS_URL: no other process can reach this one's bus`);

const feeds: FeedProvider[] = [];
let currency: CurrencyApi | null = null;
let core: Core | undefined;
let hub: Hub | undefined;

if (role === 'all' || role === 'core') {
  const partition = { count: config.ENGINE_PARTITIONS, index: config.ENGINE_PARTITION };
  if (partition.count > 1 && bus.kind === 'memory') log('warning: ENGINE_PARTITIONS > 1 without REDIS_URL: the other partitions never hear of this one\'s orders');
  core = new Core({ sql, bus, partition, priceMaxAgeMs: config.PRICE_MAX_AGE_MS });
  await core.start();
  hub = new Hub(bus);
  const h = hub;
  core.onQuote((q) => h.onQuote(q));
  log(`core: ${core.book.instruments.size} instruments, ${core.risk.openPositions} open positions rebuilt` +
    (partition.count > 1 ? ` (partition ${partition.index} of ${partition.count})` : ''));
}

if (role === 'all' || role === 'feed') {
  const { list, quotes } = await loadInstruments(sql);
  const prices = new Map(quotes.map((q) => [q.name, (q.bid + q.ask) / 2]));
  let simulated = list;
  if (config.FEED === 'providers') {
    const settings = await loadProviderSettings(sql, secretsKey(config.SECRETS_KEY));
    for (const problem of settings.problems) log(`provider settings: ${problem}`);
    const byCategory: Record<string, string[]> = {};
    for (const i of list) (byCategory[i.category] ??= []).push(i.name);
    const plan = createProviders(settings, byCategory);
    feeds.push(...plan.providers);
    const uncovered = new Set(plan.uncovered);
    simulated = list.filter((i) => uncovered.has(i.name));
    currency = plan.currency;
    await currency?.start((q) => void saveCurrencyQuota(sql, q).catch(() => {}));
    // conversions no live quote covers (an exotic wallet currency) come from the currency API
    if (currency && core) { const api = currency; core.book.setFallbackRate((f, t) => api.rate(f, t)); }
    log(`feed: ${plan.providers.map((p) => p.name).join(', ') || 'no provider configured'}; ${simulated.length} instruments simulated`);
  }
  const sim = new Simulator({ instruments: simulated, prices, seed: config.FEED_SEED, ticksPerSecond: config.FEED_TICKS_PER_SECOND });
  // first start: prices for the backfill come from the simulator's first round
  for (const t of sim.step(Date.now())) if (!prices.has(t.symbol)) prices.set(t.symbol, (t.bid + t.ask) / 2);
  void backfill(sql, list, prices, { seed: config.FEED_SEED }).then(
    (n) => n && log(`backfilled ${n} candles`), (e) => console.error('[engine] backfill', e.message));
  const emit = (t: Tick) => void bus.publish(TICKS, t).catch(() => {});
  const beat = (h: Heartbeat) => void bus.publish<RealtimeEvent>(EVENTS, { topic: 'heartbeat', event: 'heartbeat', data: h }).catch(() => {});
  if (simulated.length) feeds.push(sim);
  for (const f of feeds) await f.start(emit, beat);
  log(`feed: simulator for ${simulated.length} instruments at ${config.FEED_TICKS_PER_SECOND} ticks/s, seed ${config.FEED_SEED}`);

  // instruments added, edited or deleted by staff reach the simulator without a restart (the
  // ones a real provider serves stay with it; a new one is simulated until the next start)
  const byProvider = new Set(list.filter((i) => !simulated.includes(i)).map((i) => i.id));
  const applyInstruments = async (all: Instrument[]) => {
    const mine = all.filter((i) => !byProvider.has(i.id));
    const { quotes } = await loadInstruments(sql);
    sim.setInstruments(mine, new Map(quotes.map((q) => [q.name, (q.bid + q.ask) / 2])));
    if (mine.length && !feeds.includes(sim)) { feeds.push(sim); await sim.start(emit, beat); }
  };
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
  sql, core, bus, hub, secret: config.ENGINE_SECRET, testControls: config.ENGINE_TEST_CONTROLS === '1',
  feeds: () => feeds.map((f) => f.status()),
}).listen({ hostname: config.ENGINE_HOST, port: config.ENGINE_PORT, idleTimeout: 0 });

log(`listening on http://${config.ENGINE_HOST}:${app.server?.port} (role ${role}, bus ${bus.kind})`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping`);
  for (const f of feeds) await f.stop();
  currency?.stop();
  hub?.close();
  await app.stop();
  await core?.stop();
  await bus.close();
  await sql.end({ timeout: 5 });
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
