// The default feed: a deterministic random walk per instrument (same seed, same ticks), with
// the volatility and spread typical of its category, ticking only while its market is open.
import type { Tick, Instrument } from '../book/book.ts';
import { isMarketOpen, marketGroup, type Category } from '../domain/index.ts';
import type { FeedProvider, FeedStatus, Heartbeat } from './feed.ts';
import { rng, hashSeed } from './rng.ts';

/** Annualised volatility and spread as a fraction of price, per category. */
export const PROFILE: Record<Category, { vol: number; spread: number }> = {
  forex: { vol: 0.08, spread: 0.00008 },
  commodity: { vol: 0.25, spread: 0.0003 },
  index: { vol: 0.18, spread: 0.0002 },
  stock: { vol: 0.35, spread: 0.0004 },
  crypto: { vol: 0.7, spread: 0.0008 },
};

const KNOWN: Record<string, number> = {
  EUR_USD: 1.08, GBP_USD: 1.27, USD_JPY: 150, USD_CHF: 0.88, AUD_USD: 0.66, USD_CAD: 1.36, NZD_USD: 0.6, USD_CNH: 7.2,
  XAU_USD: 2350, XAG_USD: 28, BCO_USD: 82, WTICO_USD: 78, SPX500_USD: 5200, NAS100_USD: 18000, US30_USD: 39000,
  BTC_USD: 65000, ETH_USD: 3200,
};

export function startPrice(i: Pick<Instrument, 'name' | 'quote' | 'category'>): number {
  if (KNOWN[i.name]) return KNOWN[i.name];
  if (i.quote === 'JPY') return 150;
  return { forex: 1.1, commodity: 100, index: 10_000, stock: 150, crypto: 1_000 }[i.category];
}

const SECONDS_PER_YEAR = 365 * 24 * 3600;

interface Walker { inst: Instrument; mid: number; next: () => number; sigma: number; spread: number; digits: number }

export interface SimulatorOptions {
  instruments: Instrument[];
  prices?: Map<string, number>;   // last known mids: the walk continues from them
  seed?: number;
  ticksPerSecond?: number;       // per instrument
  now?: () => Date;
}

export class Simulator implements FeedProvider {
  readonly name = 'simulator';
  private walkers: Walker[] = [];
  private timer?: ReturnType<typeof setInterval>;
  private hb?: ReturnType<typeof setInterval>;
  private ticks = 0;
  private lastTickAt: number | null = null;
  private rate: number;
  private now: () => Date;
  private seed: number;

  constructor(opts: SimulatorOptions) {
    this.rate = opts.ticksPerSecond ?? 2;
    this.now = opts.now ?? (() => new Date());
    this.seed = opts.seed ?? 1;
    for (const inst of opts.instruments) this.walkers.push(this.walker(inst, opts.prices?.get(inst.name)));
  }

  private walker(inst: Instrument, mid?: number): Walker {
    const p = PROFILE[inst.category];
    const dt = 1 / this.rate;
    return {
      inst, mid: mid ?? startPrice(inst), next: rng(hashSeed(this.seed, inst.name)),
      sigma: p.vol * Math.sqrt(dt / SECONDS_PER_YEAR), spread: p.spread, digits: inst.quote === 'JPY' ? 3 : Math.max(inst.digits, 2),
    };
  }

  /**
   * Instruments added, edited or deleted at runtime: an instrument kept by id keeps walking from
   * its current price with its new settings (category, digits); a new one starts from `prices`
   * or its category's start price; a deleted one stops.
   */
  setInstruments(list: Instrument[], prices?: Map<string, number>) {
    const cur = new Map(this.walkers.map((w) => [w.inst.id, w]));
    this.walkers = list.map((inst) => {
      const w = cur.get(inst.id);
      if (!w) return this.walker(inst, prices?.get(inst.name));
      if (w.inst.category === inst.category && w.inst.digits === inst.digits && w.inst.quote === inst.quote) {
        w.inst = inst;
        return w;
      }
      return { ...this.walker(inst, w.mid), next: w.next };
    });
  }

  instruments(): Instrument[] { return this.walkers.map((w) => w.inst); }

  /** One round: a tick for every instrument whose market is open. Deterministic for a seed. */
  step(ts = this.now().getTime()): Tick[] {
    const at = new Date(ts);
    const out: Tick[] = [];
    for (const w of this.walkers) {
      if (!isMarketOpen(w.inst.category, at)) continue;
      w.mid *= Math.exp(w.sigma * gaussian(w.next));
      const spread = w.mid * w.spread * (0.75 + 0.5 * w.next());
      const f = 10 ** w.digits;
      const bid = Math.round((w.mid - spread / 2) * f) / f;
      const ask = Math.max(bid + 1 / f, Math.round((w.mid + spread / 2) * f) / f);
      out.push({ symbol: w.inst.name, bid, ask, ts });
    }
    return out;
  }

  async start(emit: (t: Tick) => void, heartbeat: (h: Heartbeat) => void) {
    const round = () => { for (const t of this.step()) { emit(t); this.ticks++; this.lastTickAt = t.ts; } };
    // a first round at once: the quotes saved by the last run are never traded on, so the
    // open markets get a fresh price as soon as the engine is up
    round();
    this.timer = setInterval(round, 1000 / this.rate);
    const beat = () => {
      const groups = new Set(this.walkers.map((w) => marketGroup(w.inst.category)));
      // the status page's rows, answered honestly: served by the simulator
      if (groups.has('fx')) heartbeat({ api: 'oandaRest', success: true, msg: 'simulator' });
      if (groups.has('fx')) heartbeat({ api: 'polygonForex', success: true, msg: 'simulator' });
      if (groups.has('crypto')) heartbeat({ api: 'polygonCrypto', success: true, msg: 'simulator' });
      if (groups.has('stock')) heartbeat({ api: 'eodStock', success: true, msg: 'simulator' });
    };
    beat();
    this.hb = setInterval(beat, 10_000);
  }

  async stop() { clearInterval(this.timer); clearInterval(this.hb); }

  status(): FeedStatus {
    return { name: this.name, connected: !!this.timer, ticks: this.ticks, lastTickAt: this.lastTickAt, message: `${this.walkers.length} instruments at ${this.rate}/s` };
  }
}

/** Box–Muller from a uniform generator. */
export function gaussian(next: () => number): number {
  const u = Math.max(next(), 1e-12), v = next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
