// The trading core: price book, candles, risk evaluator and close executor, wired to the bus
// and PostgreSQL. Memory is a cache: start() rebuilds it from PostgreSQL.
import type { Sql } from './db.ts';
import type { Bus } from './bus/index.ts';
import { Book, loadInstruments, type Instrument, type Quote, type Tick } from './book/book.ts';
import { CandleBuilder } from './book/candles.ts';
import { RiskEvaluator, type CloseRequest, type PositionInput } from './risk/evaluator.ts';
import { CloseExecutor } from './risk/executor.ts';
import { closeOrder, closeOrders, PlaceContextCache, type OrderDeps, type OrderHooks, type TriggerAt } from './orders/service.ts';
import type { OrderView } from './orders/view.ts';
import { DEFAULT_STOPOUT, dec, planValue, type Category } from './domain/index.ts';
import { Histogram } from './metrics.ts';
import { idAfter, type BusMessage } from './bus/index.ts';

/** How a close reason reads in a customer's notification. */
export const CLOSE_REASON_LABELS: Record<string, string> = {
  manual: 'Closed by you', tp: 'Take profit', sl: 'Stop loss', stop_out: 'Stop out', zero_equity: 'Zero equity', admin: 'Closed by the broker',
};

/** A close the evaluator asked for; `replayed`: found replaying missed ticks (closed with its tick's time). */
type TickClose = CloseRequest & { replayed?: true };

/** The tick a close settles at and records (CloseInput.at): the one its trigger fired on. */
const triggerAt = (r: TickClose): TriggerAt => ({ bid: r.tick.bid, ask: r.tick.ask, time: new Date(r.tick.ts), stamp: r.replayed });

/** A partition taken over and catching up on the ticks it missed (takeOver). */
interface Replay { risk: RiskEvaluator; cursor: string; ticks: number }

export interface RealtimeEvent { topic: string; event: string; data: unknown }

export const TICKS = 'ticks';
export const EVENTS = 'events';
/** Order lifecycle between core processes: the owner of a balance's partition keeps its positions. */
export const ORDERS = 'orders';

type OrderMessage =
  | { op: 'opened'; order: OrderView; stopout: number; balance: string }
  | { op: 'closed'; order: OrderView; balanceAfter: string | null }
  | { op: 'modified' | 'deleted'; order: OrderView };

export interface CoreOptions {
  sql: Sql;
  bus: Bus;
  now?: () => Date;
  /** persist candles and last quotes every this many ms (0: only on demand) */
  flushMs?: number;
  /**
   * Scale-out: this process evaluates triggers and stop-out only for balances with
   * id % count === index, and learns of orders placed elsewhere through the bus (ORDERS).
   * Default { count: 1, index: 0 }: every balance.
   */
  partition?: { count: number; index: number };
  /**
   * Failover (partitions.ts): this process owns no partition at start; the lease manager hands
   * it partitions (takeOver) and takes them back (giveUp). `partition.index` is then only unused.
   */
  leased?: boolean;
  /** a feed price older than this is not traded on (PRICE_MAX_AGE_MS); 0: no age limit */
  priceMaxAgeMs?: number;
  /** automatic closes per batch statement (CLOSE_BATCH_SIZE, default 1000); 1: one statement per close */
  closeBatchSize?: number;
  /** batch close statements running at once (CLOSE_BATCH_CONCURRENCY, default 4) */
  closeBatchConcurrency?: number;
}

export class Core {
  readonly book: Book;
  readonly risk: RiskEvaluator;
  readonly candles = new CandleBuilder();
  readonly executor: CloseExecutor;
  readonly orders: OrderDeps;
  readonly evalLatency = new Histogram([1, 2, 5, 10, 20, 50, 100, 250, 1000]); // µs
  private quoteListeners = new Set<(q: Quote) => void>();
  private stops: (() => void)[] = [];
  private timers: ReturnType<typeof setInterval>[] = [];
  private listen?: { unlisten: () => Promise<void> };
  private cacheListen?: { unlisten: () => Promise<void> };
  private instrumentListeners = new Set<(list: Instrument[]) => void>();
  private instrumentReload?: ReturnType<typeof setTimeout>;
  /** staff changes applied from engine_cache notifications (tests wait on it) */
  cacheChanges = 0;
  private dirtyQuotes = new Set<string>();
  /** every settled close, by reason (manual, tp, sl, stop_out, zero_equity, admin) */
  readonly closesByReason: Record<string, number> = {};
  started = false;

  readonly partition: { count: number; index: number };
  /** The partitions this process evaluates and publishes for (one, fixed, without failover). */
  readonly owned = new Set<number>();
  /** Partitions taken over and still replaying the ticks they missed. */
  private replays = new Map<number, Replay>();
  /** the id of the last tick read from the bus's live stream */
  lastTickId = '0-0';
  /** in-flight closes a tick asked for: position id → the id of the tick before it */
  private tickCloses = new Map<number, string>();
  /** positions a replay was closing when it handed over: back to the live index if the close fails */
  private handover = new Map<number, { input: PositionInput }>();
  /** this process, as health and metrics name it */
  ownerName = `${process.env.HOSTNAME ?? 'engine'}:${process.pid}`;
  /** failover counters (metrics) */
  readonly failover = { takeovers: 0, releases: 0, replayedTicks: 0, replayCloses: 0, lastTakeoverMs: 0 };

  constructor(private opts: CoreOptions) {
    this.partition = opts.partition ?? { count: 1, index: 0 };
    if (!opts.leased) this.owned.add(this.partition.count <= 1 ? 0 : this.partition.index);
    this.book = new Book(opts.now, { maxAgeMs: opts.priceMaxAgeMs });
    this.risk = new RiskEvaluator((id) => this.book.tradableById(id) !== undefined);
    const hooks: OrderHooks = {
      opened: (o, stopout, balance) => this.onOpened(o, stopout, balance),
      closed: (o, bal) => this.onClosed(o, bal),
      modified: (o) => this.onModified(o),
      deleted: (o) => this.onDeleted(o),
    };
    this.orders = {
      sql: opts.sql, book: this.book, hooks, placeCache: new PlaceContextCache(),
      instrumentOf: (id) => this.risk.position(id)?.instrumentId,
      instrumentsOf: (id) => this.risk.instrumentsOf(id),
    };
    this.executor = new CloseExecutor({
      // every close settles at the tick its trigger fired on and records it, however long it
      // waited in the queue (the book has moved on since: docs/architecture.md "Prices and freshness")
      close: async (r: TickClose) => {
        try { return await closeOrder(this.orders, { orderId: r.positionId, reason: r.reason, at: triggerAt(r) }); }
        finally { this.tickCloses.delete(r.positionId); }
      },
      // a batch: one statement, each order at its own trigger tick; a replayed close also takes
      // its tick's time, so it goes alone
      closeMany: async (rs: TickClose[]) => {
        try {
          const out: Awaited<ReturnType<typeof closeOrder>>[] = new Array(rs.length);
          const live: number[] = [];
          for (let i = 0; i < rs.length; i++) if (!rs[i].replayed) live.push(i);
          if (live.length) {
            const res = await closeOrders(this.orders, live.map((i) => ({ orderId: rs[i].positionId, reason: rs[i].reason, instrumentId: rs[i].instrumentId, at: triggerAt(rs[i]) })));
            live.forEach((i, k) => { out[i] = res[k]; });
          }
          for (let i = 0; i < rs.length; i++) {
            if (rs[i].replayed) out[i] = await closeOrder(this.orders, { orderId: rs[i].positionId, reason: rs[i].reason, at: triggerAt(rs[i]) });
          }
          return out;
        } finally {
          for (const r of rs) this.tickCloses.delete(r.positionId);
        }
      },
      forget: (id) => { this.handover.delete(id); this.executor.submit(this.risk.removePosition(id)); },
      release: (id) => {
        const h = this.handover.get(id);
        this.handover.delete(id);
        // a replayed close that failed: the position goes on being watched, live
        if (h?.input && !this.risk.position(id)) this.executor.submit(this.risk.addPosition(h.input));
        else this.risk.releaseClose(id);
      },
    }, { batchSize: opts.closeBatchSize, batchConcurrency: opts.closeBatchConcurrency ?? 4 });
  }

  /** The partition of a balance. */
  partitionOf(balanceId: number) {
    return this.partition.count <= 1 ? 0 : balanceId % this.partition.count;
  }

  /** Whether this process keeps the positions (and publishes the balance events) of a balance. */
  owns(balanceId: number) {
    return this.owned.has(this.partitionOf(balanceId));
  }

  /** Partitions owned and evaluating live (not replaying): what the lease manager may save. */
  livePartitions() { return [...this.owned].filter((p) => !this.replays.has(p)).sort((a, b) => a - b); }
  replaying() { return [...this.replays.keys()].sort((a, b) => a - b); }

  /**
   * The stream id up to which every tick is processed and every close it asked for has
   * settled: a new owner replays from here, so a crossing whose close had not committed when
   * this process died is seen again (the conditional close keeps it once).
   */
  safeTickId() {
    let safe = this.lastTickId;
    for (const id of this.tickCloses.values()) if (idAfter(safe, id)) safe = id;
    return safe;
  }

  onQuote(fn: (q: Quote) => void) { this.quoteListeners.add(fn); return () => this.quoteListeners.delete(fn); }
  /** Called with the whole instrument list after staff added, edited or deleted one. */
  onInstruments(fn: (list: Instrument[]) => void) { this.instrumentListeners.add(fn); return () => this.instrumentListeners.delete(fn); }

  publish(topic: string, event: string, data: unknown) {
    const e: RealtimeEvent = { topic, event, data };
    return this.opts.bus.publish(EVENTS, e).catch((err) => console.error('[core] publish', err.message));
  }

  async start() {
    const { sql, bus } = this.opts;
    await this.reloadInstruments();
    // the live stream from its current end: lastTickId is where a takeover's replay hands over
    this.lastTickId = await bus.tail(TICKS).catch(() => '0-0');
    await this.rebuild();
    this.stops.push(bus.subscribe<Tick>(TICKS, (m) => {
      const prev = this.lastTickId;
      this.lastTickId = m.id;
      this.ingest(m.data, prev);
    }, { from: this.lastTickId }));
    if (this.partition.count > 1 || this.opts.leased) {
      this.stops.push(bus.subscribe<OrderMessage>(ORDERS, (m) => this.applyRemote(m.data)));
    }
    this.listen = await sql.listen('balance_changed', (payload) => {
      try {
        const { balanceId, userId, balance } = JSON.parse(payload);
        if (!this.owns(Number(balanceId))) return; // its partition's owner publishes it, once
        this.executor.submit(this.risk.setBalance(Number(balanceId), Number(balance)));
        this.replays.get(this.partitionOf(Number(balanceId)))?.risk.setBalance(Number(balanceId), Number(balance));
        void this.publish(`user:${userId}`, 'balance', { balanceId: Number(balanceId), balance });
      } catch (e) { console.error('[core] balance_changed', e); }
    });
    // staff changes to plans, a user's plan and instruments (migration engine-cache-notify), and
    // to spreads and lot states (migration catalog: kind 'settings', read only by the place
    // context, so dropping the cached contexts is all there is to do)
    this.cacheListen = await sql.listen('engine_cache', (payload) => {
      let m: { kind: string; id: number };
      try { m = JSON.parse(payload); } catch { return; }
      this.orders.placeCache?.clear();
      if (m.kind === 'instrument') this.scheduleInstrumentReload();
      else if (m.kind === 'user') void this.refreshStopouts({ userId: Number(m.id) });
      else if (m.kind === 'plan') void this.refreshStopouts({ planId: Number(m.id) });
      else if (m.kind === 'settings') this.cacheChanges++;
    });
    const flushMs = this.opts.flushMs ?? 5000;
    if (flushMs > 0) this.timers.push(setInterval(() => void this.flush().catch((e) => console.error('[core] flush', e.message)), flushMs));
    this.timers.push(setInterval(() => void this.reloadInstruments().catch(() => {}), 30_000));
    this.started = true;
  }

  async stop() {
    for (const s of this.stops) s();
    for (const t of this.timers) clearInterval(t);
    await this.listen?.unlisten().catch(() => {});
    await this.cacheListen?.unlisten().catch(() => {});
    clearTimeout(this.instrumentReload);
    await this.executor.idle();
    await this.notesIdle();
    await this.flush().catch(() => {});
    this.started = false;
  }

  private scheduleInstrumentReload() {
    // a burst of edits (an import, a bulk toggle) is one reload
    if (this.instrumentReload) return;
    this.instrumentReload = setTimeout(() => {
      this.instrumentReload = undefined;
      this.reloadInstruments().then(() => { this.cacheChanges++; }, (e) => console.error('[core] instruments', e.message));
    }, 50);
  }

  /**
   * A plan's stop-out values or a user's plan changed: the open positions concerned take the new
   * threshold, and the margin they now hold (a plan subscription re-margins open positions at the
   * plan's leverage: migrations/*_plan-leverage.sql), so their stop-out price moves in the risk index.
   */
  async refreshStopouts(where: { userId?: number; planId?: number }) {
    const { sql } = this.opts;
    try {
      const rows = await sql<{ id: bigint; kind: Category; margin_used: string; plan: Record<string, unknown> | null }[]>`
        SELECT o.id, o.kind, o.margin_used, to_jsonb(p) AS plan
          FROM orders o JOIN users u ON u.id = o.user_id LEFT JOIN pricing_plans p ON p.id = u.pricing_plan_id
         WHERE o.close_time IS NULL AND o.deleted_at IS NULL
           AND ${where.userId !== undefined ? sql`o.user_id = ${where.userId}` : sql`u.pricing_plan_id = ${where.planId ?? null}`}`;
      for (const r of rows) {
        const id = Number(r.id);
        const cur = this.risk.position(id);
        const stopout = planValue(r.plan, r.kind, 'stopout') ?? DEFAULT_STOPOUT;
        const margin = +r.margin_used;
        if (!cur || this.risk.isClosing(id) || (cur.stopout === stopout && cur.margin === margin)) continue;
        this.executor.submit(this.risk.addPosition({ ...cur, stopout, margin }));
      }
      this.cacheChanges++;
    } catch (e) { console.error('[core] stop-out refresh', (e as Error).message); }
  }

  async reloadInstruments() {
    const { list, quotes } = await loadInstruments(this.opts.sql);
    const before = this.book.byId;
    this.book.setInstruments(list);
    for (const id of before.keys()) if (!this.book.byId.has(id)) this.risk.dropInstrument(id);
    this.orders.placeCache?.clear();
    for (const fn of this.instrumentListeners) fn(list);
    // the saved quotes are shown until a feed speaks, never traded on (Book.tradable)
    for (const q of quotes) this.book.seed(q);
  }

  /** Open positions and balances of some partitions (default: all owned), oldest first. */
  private async loadOpen(parts: number[]) {
    const rows = await this.opts.sql<{
      id: bigint; balance_id: bigint; instrument_id: bigint; type: 'buy' | 'sell'; kind: Category; trade_amount: string;
      open_rate: string; spread: string; exchange_rate: string; margin_used: string; profit: string | null; loss: string | null;
      plan: Record<string, unknown> | null; balance: string; open_ms: string;
    }[]>`
      SELECT o.id, o.balance_id, o.instrument_id, o.type, o.kind, o.trade_amount, o.open_rate, o.spread, o.exchange_rate,
             o.margin_used, o.profit, o.loss, to_jsonb(p) AS plan, b.balance,
             floor(extract(epoch FROM o.created_at) * 1000)::bigint::text AS open_ms
        FROM orders o JOIN balances b ON b.id = o.balance_id JOIN users u ON u.id = o.user_id
        LEFT JOIN pricing_plans p ON p.id = u.pricing_plan_id
       WHERE o.close_time IS NULL AND o.deleted_at IS NULL
         AND (${this.partition.count}::int <= 1 OR o.balance_id % ${this.partition.count}::int = ANY(${parts}::int[]))
       ORDER BY o.created_at, o.id`;
    return rows.map((r) => ({
      balance: Number(r.balance), openMs: Number(r.open_ms),
      input: {
        id: Number(r.id), accountId: Number(r.balance_id), instrumentId: Number(r.instrument_id), side: r.type,
        amount: +r.trade_amount, open: +r.open_rate, spread: +r.spread, exchangeRate: +r.exchange_rate, margin: +r.margin_used,
        tp: r.profit === null ? null : +r.profit, sl: r.loss === null ? null : +r.loss,
        stopout: planValue(r.plan, r.kind, 'stopout') ?? DEFAULT_STOPOUT,
      },
    }));
  }

  /** Open positions and balances from PostgreSQL: the evaluator's whole state (of the given partitions). */
  async rebuild(parts = [...this.owned]) {
    if (!parts.length) return 0;
    const rows = await this.loadOpen(parts);
    const out: CloseRequest[] = [];
    for (const r of rows) this.risk.setBalance(r.input.accountId, r.balance, out);
    for (const r of rows) this.risk.addPosition(r.input, out);
    this.executor.submit(out);
    return rows.length;
  }

  /**
   * Failover: this process now holds the lease of partition `p`. Its positions are rebuilt from
   * PostgreSQL and, when the previous owner saved how far it got (`fromId`), the ticks since
   * then are replayed through a private evaluator before the positions join the live one: a
   * level crossed while the partition had no owner closes at the crossing tick's price, with
   * its time (closeOrder `at`), even if the price has gone back since. A replayed tick is a
   * real feed tick, fresh at its own time, so the fresh-price rule holds: no saved quote prices
   * anything. A position is only replayed against ticks after it was opened.
   */
  async takeOver(p: number, fromId: string | null) {
    const started = performance.now();
    this.owned.add(p);
    this.failover.takeovers++;
    if (!fromId || this.opts.bus.kind === 'memory') {
      await this.rebuild([p]);
      this.failover.lastTakeoverMs = Math.round(performance.now() - started);
      return;
    }
    const rep: Replay = { risk: new RiskEvaluator(() => true), cursor: fromId, ticks: 0 };
    this.replays.set(p, rep);
    try {
      const rows = await this.loadOpen([p]);
      for (const r of rows) rep.risk.setBalance(r.input.accountId, r.balance);
      let next = 0;
      let lastFrom = fromId; // the id before the last tick replayed
      // each close carries the tick its trigger fired on (price and time: CloseRequest.tick)
      const submit = (closes: CloseRequest[], from: string) => {
        for (const c of closes as TickClose[]) {
          c.replayed = true;
          this.tickCloses.set(c.positionId, from);
          this.failover.replayCloses++;
        }
        this.executor.submit(closes);
      };
      // a position joins without being checked against the quote held (older than the position):
      // it meets the ticks after it was opened only
      const openUntil = (ms: number) => {
        for (; next < rows.length && rows[next].openMs <= ms; next++) {
          if (!rep.risk.position(rows[next].input.id) && this.closedDuringReplay.has(rows[next].input.id)) continue;
          submit(rep.risk.addPosition(rows[next].input, [], false), lastFrom);
        }
      };
      const stream = this.opts.bus as { head?: (s: string) => Promise<string> };
      const head = await stream.head?.(TICKS);
      if (head && head !== '0-0' && idAfter(head, fromId) && fromId !== '0-0') {
        console.error(`[core] partition ${p}: ticks after ${fromId} are no longer kept (oldest ${head}): replaying from there`);
      }
      for (;;) {
        if (!this.owned.has(p)) return; // given up meanwhile
        const batch: BusMessage<Tick>[] = await this.opts.bus.range<Tick>(TICKS, rep.cursor, 2000);
        // from here on synchronous: the live stream cannot move under us
        for (const m of batch) {
          if (idAfter(m.id, this.lastTickId)) break; // the live stream has not read it yet: it will
          const t = m.data;
          const inst = this.book.instruments.get(t.symbol);
          const from = rep.cursor;
          rep.cursor = m.id;
          if (!inst || !(t.bid > 0) || !(t.ask >= t.bid)) continue;
          openUntil(Number(m.id.split('-')[0]));
          lastFrom = from;
          rep.ticks++;
          this.failover.replayedTicks++;
          submit(rep.risk.onTick(inst.id, t.bid, t.ask, t.ts), from);
        }
        if (!idAfter(this.lastTickId, rep.cursor) || !batch.length) break;
      }
      if (!this.owned.has(p)) return; // the lease was lost meanwhile: the next owner replays it
      // caught up (still synchronous since the last read): the positions join the live evaluator
      openUntil(Infinity);
      const out: CloseRequest[] = [];
      const balances = new Set<number>();
      for (const h of rep.risk.held()) {
        const { closing, ...input } = h;
        if (closing) { this.handover.set(input.id, { input }); continue; }
        if (!balances.has(input.accountId)) {
          balances.add(input.accountId);
          this.risk.setBalance(input.accountId, rep.risk.balanceOf(input.accountId) ?? 0, out);
        }
        this.risk.addPosition(input, out);
      }
      this.executor.submit(out);
    } finally {
      this.replays.delete(p);
      this.closedDuringReplay.clear();
    }
    this.failover.lastTakeoverMs = Math.round(performance.now() - started);
  }

  /** positions closed while a replay was loading (a close message may beat the rebuild's read) */
  private closedDuringReplay = new Set<number>();

  /**
   * Failover: the lease of partition `p` is given up (rebalancing, shutdown): its positions and
   * accounts leave the evaluator; the new owner rebuilds them. Resolves to the id to replay from.
   */
  async giveUp(p: number) {
    this.owned.delete(p);
    this.replays.delete(p);
    this.failover.releases++;
    this.risk.dropAccounts((a) => this.partitionOf(a) === p);
    return this.safeTickId();
  }

  /** One tick: book, candles, risk, listeners. `prevId`: the bus id before it (for safeTickId). */
  ingest(t: Tick, prevId?: string) {
    const q = this.book.apply(t);
    if (!q) return;
    const inst = this.book.instruments.get(t.symbol)!;
    this.candles.add(inst.id, (t.bid + t.ask) / 2, t.ts);
    this.dirtyQuotes.add(t.symbol);
    const s = performance.now();
    const closes = this.risk.onTick(inst.id, t.bid, t.ask, t.ts);
    this.evalLatency.observe((performance.now() - s) * 1000);
    if (prevId !== undefined) for (const c of closes) this.tickCloses.set(c.positionId, prevId);
    this.executor.submit(closes);
    for (const fn of this.quoteListeners) fn(q);
  }

  /** Persist candles and the last quote of each instrument that moved. */
  async flush() {
    await this.candles.flush(this.opts.sql);
    const names = [...this.dirtyQuotes];
    this.dirtyQuotes.clear();
    const rows = names.map((n) => this.book.quote(n)!).filter(Boolean).map((q) => ({ name: q.name, bids: q.bid, asks: q.ask }));
    if (rows.length) {
      await this.opts.sql`
        UPDATE instruments i SET bids = v.bids::numeric, asks = v.asks::numeric
          FROM (VALUES ${this.opts.sql(rows.map((r) => [r.name, String(r.bids), String(r.asks)]))}) AS v(name, bids, asks)
         WHERE i.name = v.name`;
    }
  }

  private positionInput(o: OrderView, stopout: number) {
    return {
      id: o.id, accountId: o.balance_id, instrumentId: o.instrument_id, side: o.type, amount: +o.trade_amount,
      open: +o.open_rate, spread: +o.spread, exchangeRate: +o.exchange_rate, margin: +o.margin_used,
      tp: o.profit === null ? null : +o.profit, sl: o.loss === null ? null : +o.loss, stopout,
    };
  }

  // A command settled here: the risk index learns it here when this process owns the balance,
  // else the owner learns it from the bus; the user's realtime event is published once, here.
  private onOpened(o: OrderView, stopout: number, balance: string) {
    this.applyOpened(o, stopout, balance);
    void this.publish(`user:${o.user_id}`, 'order.opened', o);
  }

  private onClosed(o: OrderView, balanceAfter: string | null) {
    const reason = o.close_reason ?? 'manual';
    this.closesByReason[reason] = (this.closesByReason[reason] ?? 0) + 1;
    this.applyClosed(o, balanceAfter);
    void this.publish(`user:${o.user_id}`, 'order.closed', o);
    if (reason !== 'manual') this.notifyClosed(o, reason);
  }

  /**
   * A position the customer did not close themselves leaves a notification, so it is in their
   * dropdown even when they were away. Written after the close committed: a failure here never
   * undoes a close. The live page already toasts the order.closed event, hence toast: false.
   * Notifications of the closes settled together (a batch of a flash crash) are written with
   * one INSERT, then each published.
   */
  private notifyClosed(o: OrderView, reason: string) {
    // the figures travel as values (data) for the web to format in the reader's language; the
    // English text beside them shows units without trailing zeros and rates with the instrument's digits
    const digits = this.book.byId.get(o.instrument_id)?.digits ?? 5;
    const data = {
      kind: 'position.closed', id: o.id, reason, side: o.type, amount: dec(o.trade_amount).toFixed(),
      instrument: o.instrument.replace('_', '/'), rate: o.close_rate, digits, pnl: o.pro_loss ?? '0',
    };
    const title = `Position #${o.id} closed: ${CLOSE_REASON_LABELS[reason] ?? reason}`;
    const description = `${o.type === 'buy' ? 'Buy' : 'Sell'} ${data.amount} ${data.instrument} at ${dec(o.close_rate ?? 0).toFixed(digits)}, P/L ${dec(data.pnl).toFixed(5)}`;
    this.closeNotes.push({ userId: o.user_id, title, description, data });
    if (this.closeNotes.length === 1) setImmediate(() => void this.writeCloseNotes());
  }

  private closeNotes: { userId: number; title: string; description: string; data: Record<string, unknown> }[] = [];
  /** close notifications being written (tests and benchmarks wait on them with notesIdle) */
  private notesInFlight: Promise<void> = Promise.resolve();

  /** Resolves when every close notification asked for so far is written and published. */
  notesIdle(): Promise<void> { return this.writeCloseNotes(); }

  private writeCloseNotes() {
    const notes = this.closeNotes.splice(0);
    if (!notes.length) return this.notesInFlight;
    this.notesInFlight = this.notesInFlight.then(() => this.insertCloseNotes(notes));
    return this.notesInFlight;
  }

  private async insertCloseNotes(notes: Core['closeNotes']): Promise<void> {
    const sql = this.opts.sql;
    try {
      const rows = await sql<{ id: bigint; order_id: string }[]>`
        INSERT INTO notifications (user_id, title, description, url, data)
        SELECT n.user_id, n.title, n.description, '/dashboard', n.data::jsonb
          FROM unnest(${notes.map((n) => String(n.userId))}::bigint[], ${notes.map((n) => n.title)}::text[],
                      ${notes.map((n) => n.description)}::text[], ${notes.map((n) => JSON.stringify(n.data))}::text[])
               WITH ORDINALITY AS n (user_id, title, description, data, k)
         ORDER BY n.k
        RETURNING id, data->>'id' AS order_id`;
      const ids = new Map(rows.map((r) => [r.order_id, Number(r.id)]));
      for (const n of notes) {
        void this.publish(`user:${n.userId}`, 'notification',
          { id: ids.get(String(n.data.id)), title: n.title, description: n.description, url: '/dashboard', data: n.data, toast: false });
      }
    } catch (err) {
      // one bad row (say, a user gone) must not cost the others theirs: write them one by one
      if (notes.length > 1) { for (const n of notes) await this.insertCloseNotes([n]); return; }
      console.error('[core] notification', (err as Error).message);
    }
  }

  private onModified(o: OrderView) {
    this.applyModified(o);
    void this.publish(`user:${o.user_id}`, 'order.modified', o);
  }

  private onDeleted(o: OrderView) {
    this.applyDeleted(o);
    void this.publish(`user:${o.user_id}`, 'order.deleted', o);
  }

  private forward(m: OrderMessage) {
    this.opts.bus.publish(ORDERS, m).catch((err) => console.error('[core] orders bus', err.message));
  }

  /** An order command settled by another core process, for the balance's owner. */
  private applyRemote(m: OrderMessage) {
    if (!this.owns(m.order.balance_id)) return;
    if (m.op === 'opened') this.applyOpened(m.order, m.stopout, m.balance);
    else if (m.op === 'closed') this.applyClosed(m.order, m.balanceAfter);
    else if (m.op === 'modified') this.applyModified(m.order);
    else this.applyDeleted(m.order);
  }

  private applyOpened(o: OrderView, stopout: number, balance: string) {
    if (!this.owns(o.balance_id)) return this.forward({ op: 'opened', order: o, stopout, balance });
    // the balance as of the order's transaction: the evaluator may not have seen this account yet
    this.risk.setBalance(o.balance_id, Number(balance));
    this.executor.submit(this.risk.addPosition(this.positionInput(o, stopout)));
  }

  private applyClosed(o: OrderView, balanceAfter: string | null) {
    if (!this.owns(o.balance_id)) return this.forward({ op: 'closed', order: o, balanceAfter });
    this.handover.delete(o.id);
    const rep = this.replays.get(this.partitionOf(o.balance_id));
    if (rep) { this.closedDuringReplay.add(o.id); rep.risk.removePosition(o.id, balanceAfter === null ? undefined : Number(balanceAfter)); }
    this.executor.submit(this.risk.removePosition(o.id, balanceAfter === null ? undefined : Number(balanceAfter)));
  }

  private applyModified(o: OrderView) {
    if (!this.owns(o.balance_id)) return this.forward({ op: 'modified', order: o });
    const cur = this.risk.position(o.id);
    if (cur && !o.close_time && !this.risk.isClosing(o.id)) {
      this.executor.submit(this.risk.addPosition(this.positionInput(o, cur.stopout)));
    } else if (cur && !o.close_time) {
      // a close is under way on the old levels: should it be refused (the new level is not
      // reached: migration close-at-trigger-tick), the position is watched on the new ones
      const next = this.positionInput(o, cur.stopout);
      this.risk.updateLevels(o.id, next.tp, next.sl);
    }
    const rep = this.replays.get(this.partitionOf(o.balance_id));
    const r = rep?.risk.position(o.id);
    if (rep && r && !o.close_time && !rep.risk.isClosing(o.id)) rep.risk.updateLevels(o.id, this.positionInput(o, r.stopout).tp, this.positionInput(o, r.stopout).sl);
  }

  private applyDeleted(o: OrderView) {
    if (!this.owns(o.balance_id)) return this.forward({ op: 'deleted', order: o });
    this.executor.submit(this.risk.removePosition(o.id));
    const rep = this.replays.get(this.partitionOf(o.balance_id));
    if (rep) { this.closedDuringReplay.add(o.id); rep.risk.removePosition(o.id); }
  }
}
