// The feed role's real providers, kept in step with the admin's API settings without a restart
// (docs/specs.md#settings-and-providers). A save on /admin/apis changes an api_settings row, whose
// trigger NOTIFYs engine_cache { kind: 'provider', key } (migration provider-settings-notify); the
// manager reloads the settings and restarts only the adapters whose key, mode or instruments
// changed: a new polygonAPI key restarts the two Polygon sockets, an OANDA switch from practice to
// live restarts the OANDA stream, and a provider whose key was removed stops (its instruments go
// back to the simulator). The currency API restarts when its key changes.
//
// It also answers the status page's rows that no adapter reports on: every heartbeat period, an
// api with no running adapter sends { success: false, msg: 'not configured' } (no key) or why it
// is not used (another provider serves its instruments, or there are none) — unless the simulator
// serves instruments of its market (prices move): then the row says so, { success: true, msg:
// 'simulator (not configured)' }, the feed's real state rather than a red 'Disconnected'.
import type { Sql } from '../../db.ts';
import type { Heartbeat, HeartbeatApi, FeedProvider } from '../feed.ts';
import type { Tick } from '../../book/book.ts';
import { createProviders, type Category, type InstrumentsByCategory, type ProviderOverrides, type ProviderPlan } from './index.ts';
import { loadProviderSettings, saveCurrencyQuota, type ProviderSettings } from './settings.ts';
import type { CurrencyApi } from './currency.ts';
import type { ProviderStatus } from './common.ts';

export const HEARTBEAT_APIS: readonly HeartbeatApi[] = ['polygonForex', 'polygonCrypto', 'eodStock', 'oandaRest'];
export const NOT_CONFIGURED = 'not configured';

/** The categories each status row's api would serve (createProviders' split). */
const API_CATEGORIES: Record<HeartbeatApi, readonly Category[]> = {
  polygonForex: ['forex', 'commodity'], oandaRest: ['forex', 'commodity', 'index'], polygonCrypto: ['crypto'], eodStock: ['stock'],
};

export interface FeedManagerOptions {
  sql: Sql;
  secretsKey: Buffer;
  /** the instruments' names by category (re-read at each reload) */
  instruments: () => Promise<InstrumentsByCategory>;
  emit: (t: Tick) => void;
  heartbeat: (h: Heartbeat) => void;
  /** the instruments no provider serves now (the simulator takes them) */
  onUncovered?: (names: string[]) => void | Promise<void>;
  onCurrency?: (api: CurrencyApi | null) => void;
  overrides?: ProviderOverrides;
  /** period of the 'not configured' heartbeats (ms); default 10000, 0 disables the timer */
  heartbeatMs?: number;
  log?: (m: string) => void;
}

interface Running { provider: FeedProvider; fingerprint: string }

/** What each provider's adapter depends on: a change of any of it restarts the adapter. */
function fingerprint(name: string, settings: ProviderSettings, instruments: string[]): string {
  const slice = name === 'oanda' ? settings.oanda : name.startsWith('polygon') ? settings.polygon : name.startsWith('eod') ? settings.eod : undefined;
  return JSON.stringify([name, slice ?? null, instruments]);
}

export class FeedManager {
  private running = new Map<string, Running>();
  private currency: { api: CurrencyApi; key: string } | null = null;
  private settings: ProviderSettings = { problems: [] };
  private plan: ProviderPlan | null = null;
  /** the categories with instruments the simulator serves (no provider does) */
  private simulatedCategories = new Set<Category>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private listener: { unlisten: () => Promise<void> } | null = null;
  private pending: ReturnType<typeof setTimeout> | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** reloads applied (tests wait on it) */
  reloads = 0;

  constructor(private o: FeedManagerOptions) {}

  /** Loads the settings and starts the configured adapters. */
  async start(): Promise<void> {
    await this.reload();
    const ms = this.o.heartbeatMs ?? 10_000;
    if (ms > 0) {
      this.timer = setInterval(() => this.idleBeats(), ms);
      (this.timer as { unref?: () => void }).unref?.();
    }
  }

  /** Follows the admin's saves (engine_cache kind 'provider'). */
  async listen(): Promise<void> {
    this.listener = await this.o.sql.listen('engine_cache', (payload) => {
      let m: { kind?: string };
      try { m = JSON.parse(payload); } catch { return; }
      if (m.kind !== 'provider' || this.pending) return;
      // one save is one reload, however many rows it touched
      this.pending = setTimeout(() => { this.pending = undefined; void this.reload(); }, 50);
    });
  }

  /** Re-reads api_settings and restarts what changed; serialised, so two saves never race. */
  reload(): Promise<void> {
    this.chain = this.chain.then(() => this.apply()).catch((e) => this.o.log?.(`provider reload failed: ${(e as Error).message}`));
    return this.chain;
  }

  private async apply() {
    const settings = await loadProviderSettings(this.o.sql, this.o.secretsKey);
    for (const p of settings.problems) this.o.log?.(`provider settings: ${p}`);
    const byCategory = await this.o.instruments();
    const plan = createProviders(settings, byCategory, this.o.overrides);
    const next = new Map<string, Running>();
    for (const p of plan.providers) next.set(p.name, { provider: p, fingerprint: fingerprint(p.name, settings, (p.status() as ProviderStatus).instruments) });

    const stopped: string[] = [], started: string[] = [];
    for (const [name, cur] of this.running) {
      const n = next.get(name);
      if (n && n.fingerprint === cur.fingerprint) next.set(name, cur); // unchanged: keep it running
      else { await cur.provider.stop(); stopped.push(name); }
    }
    this.settings = settings;
    this.plan = plan;
    const uncovered = new Set(plan.uncovered);
    this.simulatedCategories = new Set((Object.keys(byCategory) as Category[]).filter((c) => (byCategory[c] ?? []).some((n) => uncovered.has(n))));
    // the simulator takes what no provider serves any more before the new adapters start
    await this.o.onUncovered?.(plan.uncovered);
    for (const [name, n] of next) {
      if (this.running.get(name) === n) continue;
      await n.provider.start(this.o.emit, this.o.heartbeat);
      started.push(name);
    }
    this.running = next;

    const currencyKey = settings.currency?.apiKey ?? '';
    if ((this.currency?.key ?? '') !== currencyKey) {
      this.currency?.api.stop();
      this.currency = plan.currency ? { api: plan.currency, key: currencyKey } : null;
      await this.currency?.api.start((q) => void saveCurrencyQuota(this.o.sql, q).catch(() => {}));
      this.o.onCurrency?.(this.currency?.api ?? null);
    }
    this.idleBeats();
    this.reloads++;
    if (stopped.length || started.length || this.reloads === 1) {
      this.o.log?.(`feed: ${[...this.running.keys()].join(', ') || 'no provider configured'}` +
        (this.reloads > 1 ? ` (restarted: ${started.join(', ') || 'none'}; stopped: ${stopped.join(', ') || 'none'})` : '') +
        `; ${plan.uncovered.length} instruments simulated`);
    }
  }

  /** Why an api has no adapter running, or null when one is running. */
  idleReason(api: HeartbeatApi): string | null {
    for (const r of this.running.values()) if ((r.provider.status() as { api?: string }).api === api) return null;
    const s = this.settings;
    const has: Record<HeartbeatApi, boolean> = { polygonForex: !!s.polygon, polygonCrypto: !!s.polygon, eodStock: !!s.eod, oandaRest: !!s.oanda };
    if (!has[api]) return NOT_CONFIGURED;
    if (api === 'polygonForex' && s.oanda) return 'not used: OANDA serves forex';
    return 'no instruments to serve';
  }

  private idleBeats() {
    for (const api of HEARTBEAT_APIS) {
      const why = this.idleReason(api);
      if (!why) continue;
      // no adapter, but the simulator moves prices of this market: that is the row's real state
      const simulated = API_CATEGORIES[api].some((c) => this.simulatedCategories.has(c));
      try { this.o.heartbeat(simulated ? { api, success: true, msg: `simulator (${why})` } : { api, success: false, msg: why }); } catch { /* ignore */ }
    }
  }

  providers(): FeedProvider[] { return [...this.running.values()].map((r) => r.provider); }
  /** our instrument name → the provider serving it */
  assignment(): ReadonlyMap<string, string> { return this.plan?.assignment ?? new Map(); }
  currencyApi(): CurrencyApi | null { return this.currency?.api ?? null; }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    clearTimeout(this.pending);
    await this.listener?.unlisten().catch(() => {});
    await this.chain.catch(() => {});
    for (const r of this.running.values()) await r.provider.stop();
    this.running.clear();
    this.currency?.api.stop();
    this.currency = null;
  }
}

/** The instruments table's names by category, as the manager reloads them. */
export async function instrumentsByCategory(sql: Sql): Promise<InstrumentsByCategory> {
  const rows = await sql<{ name: string; category: Category }[]>`SELECT name, category::text AS category FROM instruments ORDER BY id`;
  const out: InstrumentsByCategory = {};
  for (const r of rows) (out[r.category] ??= []).push(r.name);
  return out;
}
