import type Decimal from 'decimal.js';
// The price book: latest and previous bid/ask and closeout per instrument, the instrument list,
// and market status. In memory; the instruments table holds the last quote so a restart
// can show it, but a saved quote is stale: nothing is filled, closed or triggered on it
// (tradable() is the one rule every trading path asks).
import type { Sql } from '../db.ts';
import { conversionRate, dec, marketStatus, isMarketOpen, type Category, type MarketStatus } from '../domain/index.ts';

/** closeoutBid/closeoutAsk: the provider's closeout prices (OANDA sends them); else bid/ask. */
export interface Tick { symbol: string; bid: number; ask: number; ts: number; closeoutBid?: number; closeoutAsk?: number }

export interface Instrument {
  id: number;
  name: string;
  base: string;
  quote: string;
  category: Category;
  tradable: boolean;
  leverage: number;
  digits: number;
}

export interface Quote {
  name: string;
  bid: number; ask: number;
  prevBid: number; prevAsk: number;
  closeoutBid: number; closeoutAsk: number;
  ts: number;
  /** when the engine received it (for latency figures) */
  ingestedAt: number;
  /** wall-clock ms when this process received it (for its age) */
  receivedAt: number;
  /** the last quote saved before this process started: shown, never traded on */
  stale?: true;
}

export interface BookOptions {
  /** a feed quote older than this is no longer tradable; 0: no age limit */
  maxAgeMs?: number;
  /** wall clock for the age (tests) */
  clock?: () => number;
}

export class Book {
  instruments = new Map<string, Instrument>();
  byId = new Map<number, Instrument>();
  quotes = new Map<string, Quote>();
  ticks = 0;

  private maxAgeMs: number;
  private clock: () => number;

  constructor(private now: () => Date = () => new Date(), opts: BookOptions = {}) {
    this.maxAgeMs = opts.maxAgeMs ?? 0;
    this.clock = opts.clock ?? Date.now;
  }

  setInstruments(list: Instrument[]) {
    this.instruments = new Map(list.map((i) => [i.name, i]));
    this.byId = new Map(list.map((i) => [i.id, i]));
    // a deleted or renamed instrument's quote goes with it
    for (const name of this.quotes.keys()) if (!this.instruments.has(name)) this.quotes.delete(name);
  }

  /** Apply a tick; returns the quote, or undefined for an unknown symbol or a bad price. */
  apply(t: Tick): Quote | undefined {
    if (!this.instruments.has(t.symbol) || !(t.bid > 0) || !(t.ask >= t.bid)) return undefined;
    const prev = this.quotes.get(t.symbol);
    const q: Quote = {
      name: t.symbol, bid: t.bid, ask: t.ask,
      prevBid: prev?.bid ?? t.bid, prevAsk: prev?.ask ?? t.ask,
      closeoutBid: t.closeoutBid ?? t.bid, closeoutAsk: t.closeoutAsk ?? t.ask,
      ts: t.ts, ingestedAt: performance.now(), receivedAt: this.clock(),
    };
    this.quotes.set(t.symbol, q);
    this.ticks++;
    return q;
  }

  /** The quote saved by an earlier process: kept for display only, marked stale. A live quote wins. */
  seed(s: { name: string; bid: number; ask: number }) {
    if (!this.instruments.has(s.name) || this.quotes.has(s.name) || !(s.bid > 0) || !(s.ask >= s.bid)) return;
    this.quotes.set(s.name, {
      name: s.name, bid: s.bid, ask: s.ask, prevBid: s.bid, prevAsk: s.ask, closeoutBid: s.bid, closeoutAsk: s.ask,
      ts: 0, ingestedAt: performance.now(), receivedAt: this.clock(), stale: true,
    });
  }

  /** The last quote, fresh or not: for display only. */
  quote(name: string) { return this.quotes.get(name); }

  /**
   * Whether a quote may price a fill, a close, a trigger or a stop-out: it came from a feed
   * after this process started and, with a maximum age set, is younger than it.
   */
  isTradable(q: Quote | undefined): q is Quote {
    return !!q && !q.stale && (this.maxAgeMs <= 0 || this.clock() - q.receivedAt <= this.maxAgeMs);
  }

  /** The quote to trade on, or undefined while the instrument has no fresh price. */
  tradable(name: string): Quote | undefined {
    const q = this.quotes.get(name);
    return this.isTradable(q) ? q : undefined;
  }

  tradableById(id: number): Quote | undefined {
    const i = this.byId.get(id);
    return i && this.tradable(i.name);
  }

  /** Mid of a pair's fresh quote; `stale` also takes a saved one (display of /rates). */
  mid(pair: string, stale = false) {
    const q = stale ? this.quotes.get(pair) : this.tradable(pair);
    return q ? dec(q.bid).plus(q.ask).div(2) : undefined;
  }

  /** How many `to` units one `from` unit buys, from live FX quotes. */
  /** Conversion from live quotes (direct, inverse, or through USD), else from the fallback
   *  (the currency API, when configured) for currencies no instrument quotes. */
  rate(from: string, to: string, opts: { stale?: boolean } = {}) {
    return conversionRate(from, to, (p) => this.mid(p, opts.stale)) ?? this.fallbackRate?.(from, to);
  }

  private fallbackRate?: (from: string, to: string) => Decimal | undefined;
  setFallbackRate(fn: (from: string, to: string) => Decimal | undefined) {
    this.fallbackRate = fn;
  }

  status(): MarketStatus { return marketStatus(this.now()); }
  isOpen(category: Category) { return isMarketOpen(category, this.now()); }
  at() { return this.now(); }
}

export async function loadInstruments(sql: Sql): Promise<{ list: Instrument[]; quotes: { name: string; bid: number; ask: number }[] }> {
  const rows = await sql<{ id: bigint; name: string; base: string; quote: string; category: Category; tradable: boolean; leverage: number; digits: number; bids: string | null; asks: string | null }[]>`
    SELECT id, name, base, quote, category, tradable, leverage, digits, bids, asks FROM instruments ORDER BY id`;
  return {
    list: rows.map((r) => ({ id: Number(r.id), name: r.name, base: r.base, quote: r.quote, category: r.category, tradable: r.tradable, leverage: r.leverage, digits: r.digits })),
    quotes: rows.filter((r) => r.bids && r.asks).map((r) => ({ name: r.name, bid: Number(r.bids), ask: Number(r.asks) })),
  };
}
