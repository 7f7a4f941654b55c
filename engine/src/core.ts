// The trading core's wiring: price book, candles, risk evaluator and close executor, connected to
// the bus and PostgreSQL. Memory is a cache: start() rebuilds it from PostgreSQL. Each job lives
// in its module: failover replay (risk/failover.ts), the positions and stop-outs read from
// PostgreSQL (risk/open-positions.ts), instrument reload (book/instrument-reload.ts), quote and
// candle flush (book/persist.ts), forwarding between cores (orders/forward.ts), close
// notifications (orders/close-notices.ts), realtime publishing (realtime/publish.ts).
import type { Sql } from './db.ts';
import type { Bus } from './bus/index.ts';
import { Book, type Instrument, type Quote, type Tick } from './book/book.ts';
import { CandleBuilder } from './book/candles.ts';
import { BookWriter } from './book/persist.ts';
import { InstrumentReloader } from './book/instrument-reload.ts';
import { RiskEvaluator, type CloseRequest } from './risk/evaluator.ts';
import { CloseExecutor } from './risk/executor.ts';
import { TrailWriter } from './risk/trail-writer.ts';
import { FailoverReplay } from './risk/failover.ts';
import { loadOpenPositions, planStopouts, positionInput } from './risk/open-positions.ts';
import { PendingIndex } from './risk/pending.ts';
import {
  PendingActivator, activatePendings, expirePending, loadPending, pendingInput,
  type ActivateInput, type ActivateOutcome, type PendingDeps, type PendingHooks,
} from './orders/pending.ts';
import type { PendingView } from './orders/view.ts';
import { PlaceContextCache, type OrderDeps, type OrderHooks } from './orders/service.ts';
import type { OrderView } from './orders/view.ts';
import { CloseNotices } from './orders/close-notices.ts';
import { followOrders, forwardOrder, type OrderMessage } from './orders/forward.ts';
import { publishEvent } from './realtime/publish.ts';
import { positionEvent, type PublishedEventName, type StreamEvents } from './contract/events.ts';
import { EXPOSURE_TOPIC } from './contract/ticket.ts';
import { Histogram } from './metrics.ts';
import { TICKS } from './bus/streams.ts';

// the bus's stream names, where the processes and tests have always found them
export { TICKS, EVENTS, ORDERS, type RealtimeEvent } from './bus/streams.ts';

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
  /** write the trailing stops moved every this many ms (default 1000; 0: only on demand) */
  trailFlushMs?: number;
  /** automatic closes per batch statement (CLOSE_BATCH_SIZE, default 1000); 1: one statement per close */
  closeBatchSize?: number;
  /** batch close statements running at once (CLOSE_BATCH_CONCURRENCY, default 4) */
  closeBatchConcurrency?: number;
  /** pending order activations per batch statement (default 1000; 1: one statement per fill) */
  activateBatchSize?: number;
  /** activation statements running at once (default 4) */
  activateConcurrency?: number;
}

export class Core {
  readonly book: Book;
  readonly risk: RiskEvaluator;
  readonly candles = new CandleBuilder();
  readonly executor: CloseExecutor;
  readonly orders: OrderDeps;
  /** pending orders' trigger levels (of the partitions owned) and their activations */
  readonly pending = new PendingIndex();
  readonly pendingDeps: PendingDeps;
  readonly activator: PendingActivator;
  /** pending orders filled, cancelled at activation, expired (metrics, tests) */
  readonly pendingCounts = { filled: 0, cancelled: 0, expired: 0 };
  readonly evalLatency = new Histogram([1, 2, 5, 10, 20, 50, 100, 250, 1000]); // µs
  private quoteListeners = new Set<(q: Quote) => void>();
  private stops: (() => void)[] = [];
  private timers: ReturnType<typeof setInterval>[] = [];
  private listen?: { unlisten: () => Promise<void> };
  private cacheListen?: { unlisten: () => Promise<void> };
  private instrumentListeners = new Set<(list: Instrument[]) => void>();
  private instruments: InstrumentReloader;
  private writer: BookWriter;
  private notices: CloseNotices;
  private replay: FailoverReplay;
  /** trailing stops to PostgreSQL and the customers' pages, throttled */
  readonly trails: TrailWriter;
  /** staff changes applied from engine_cache notifications (tests wait on it) */
  cacheChanges = 0;
  /** every settled close, by reason (manual, tp, sl, stop_out, zero_equity, admin) */
  readonly closesByReason: Record<string, number> = {};
  started = false;

  readonly partition: { count: number; index: number };
  /** The partitions this process evaluates and publishes for (one, fixed, without failover). */
  readonly owned = new Set<number>();
  /** the id of the last tick read from the bus's live stream */
  lastTickId = '0-0';
  /** this process, as health and metrics name it */
  ownerName = `${process.env.HOSTNAME ?? 'engine'}:${process.pid}`;

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
      partial: (part, rest, bal) => this.onPartial(part, rest, bal),
    };
    this.orders = {
      sql: opts.sql, book: this.book, hooks, placeCache: new PlaceContextCache(),
      instrumentOf: (id) => this.risk.position(id)?.instrumentId,
      instrumentsOf: (id) => this.risk.instrumentsOf(id),
      stopOf: (id) => (this.risk.position(id) ? this.risk.stopOf(id) : undefined),
    };
    this.trails = new TrailWriter(opts.sql, this.risk, (userId, e) => void this.publish(`user:${userId}`, 'order.trailed', e));
    const pendingHooks: PendingHooks = {
      placed: (p) => this.onPending('pending.placed', p),
      modified: (p) => this.onPending('pending.modified', p),
      filled: (p, o, stopout, balance) => { this.pendingCounts.filled++; this.onPending('pending.filled', p); this.onOpened(o, stopout, balance); },
      ended: (p) => {
        if (p.status === 'expired') this.pendingCounts.expired++; else if (p.cancel_reason !== 'customer' && p.cancel_reason !== 'staff') this.pendingCounts.cancelled++;
        this.onPending('pending.cancelled', p);
        // the customer did not cancel it themselves: a notification says why
        if (p.cancel_reason !== 'customer') this.notices.pendingEnded(p);
      },
    };
    this.pendingDeps = { orders: this.orders, hooks: pendingHooks, now: opts.now };
    this.activator = new PendingActivator((acts) => activatePendings(this.pendingDeps, acts), (a, o) => this.activated(a, o),
      { batchSize: opts.activateBatchSize, concurrency: opts.activateConcurrency ?? 4 });
    this.replay = new FailoverReplay({
      bus: opts.bus, book: this.book, risk: this.risk, owned: this.owned,
      submit: (closes) => this.executor.submit(closes),
      partitionOf: (b) => this.partitionOf(b),
      lastTickId: () => this.lastTickId,
      rebuild: (parts) => this.rebuild(parts),
      loadOpen: (parts) => loadOpenPositions(opts.sql, this.partition.count, parts),
      pending: this.pending,
      loadPending: (parts) => loadPending(opts.sql, this.partition.count, parts),
      activate: (acts) => this.activator.submit(acts),
      expire: (ids) => this.expire(ids),
    });
    // a trailing stop's close writes the stop it trailed to first (TrailWriter.beforeClose)
    const closers = this.replay.closers(this.orders);
    this.executor = new CloseExecutor({
      ...closers,
      close: async (r) => { await this.trails.beforeClose([r]); return closers.close(r); },
      closeMany: async (rs) => { await this.trails.beforeClose(rs); return closers.closeMany(rs); },
    },
      { batchSize: opts.closeBatchSize, batchConcurrency: opts.closeBatchConcurrency ?? 4 });
    this.writer = new BookWriter(opts.sql, this.book, this.candles);
    this.instruments = new InstrumentReloader(opts.sql, this.book, (list, dropped) => {
      for (const id of dropped) this.risk.dropInstrument(id);
      this.orders.placeCache?.clear();
      for (const fn of this.instrumentListeners) fn(list);
    });
    this.notices = new CloseNotices(opts.sql, (id) => this.book.byId.get(id)?.digits,
      (userId, n) => void this.publish(`user:${userId}`, 'notification', n));
  }

  /** The partition of a balance. */
  partitionOf(balanceId: number) {
    return this.partition.count <= 1 ? 0 : balanceId % this.partition.count;
  }

  /** Whether this process keeps the positions (and publishes the balance events) of a balance. */
  owns(balanceId: number) {
    return this.owned.has(this.partitionOf(balanceId));
  }

  /** failover counters (metrics) */
  get failover() { return this.replay.counters; }
  /** Partitions owned and evaluating live (not replaying): what the lease manager may save. */
  livePartitions() { return this.replay.livePartitions(); }
  replaying() { return this.replay.replaying(); }
  /** The stream id a new owner replays from (FailoverReplay.safeTickId). */
  safeTickId() { return this.trails.bound(this.replay.safeTickId()); }
  /** Failover: this process now holds the lease of partition `p` (FailoverReplay.takeOver). */
  takeOver(p: number, fromId: string | null) { return this.replay.takeOver(p, fromId); }
  /** Failover: the lease of partition `p` is given up; resolves to the id to replay from. */
  async giveUp(p: number) {
    // the partition's trailed stops are written before it goes (the next owner reads them)
    await this.flushTrails().catch((e) => console.error('[core] trailing flush', (e as Error).message));
    return this.trails.bound(await this.replay.giveUp(p));
  }

  /** Write the trailing stops moved since the last flush (TrailWriter). */
  flushTrails() { return this.trails.flush(); }

  onQuote(fn: (q: Quote) => void) { this.quoteListeners.add(fn); return () => this.quoteListeners.delete(fn); }
  /** Called with the whole instrument list after staff added, edited or deleted one. */
  onInstruments(fn: (list: Instrument[]) => void) { this.instrumentListeners.add(fn); return () => this.instrumentListeners.delete(fn); }

  /** A realtime event of the contract (contract/events.ts) to every hub. */
  publish<E extends PublishedEventName>(topic: string, event: E, data: StreamEvents[E]) {
    return publishEvent(this.opts.bus, topic, event, data);
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
      this.stops.push(followOrders(bus, (m) => this.applyRemote(m)));
    }
    this.listen = await sql.listen('balance_changed', (payload) => {
      try {
        const { balanceId, userId, balance } = JSON.parse(payload);
        if (!this.owns(Number(balanceId))) return; // its partition's owner publishes it, once
        this.executor.submit(this.risk.setBalance(Number(balanceId), Number(balance)));
        this.replay.replayOf(Number(balanceId))?.setBalance(Number(balanceId), Number(balance));
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
      if (m.kind === 'instrument') this.instruments.schedule(() => { this.cacheChanges++; });
      else if (m.kind === 'user') void this.refreshStopouts({ userId: Number(m.id) });
      else if (m.kind === 'plan') void this.refreshStopouts({ planId: Number(m.id) });
      else if (m.kind === 'settings') this.cacheChanges++;
    });
    const flushMs = this.opts.flushMs ?? 5000;
    if (flushMs > 0) this.timers.push(setInterval(() => void this.flush().catch((e) => console.error('[core] flush', e.message)), flushMs));
    this.timers.push(setInterval(() => void this.reloadInstruments().catch(() => {}), 30_000));
    const trailMs = this.opts.trailFlushMs ?? 1000;
    if (trailMs > 0) this.timers.push(setInterval(() => void this.flushTrails().catch((e) => console.error('[core] trailing flush', e.message)), trailMs));
    // pending orders whose expiry time came (a tick also checks, before it activates anything)
    this.timers.push(setInterval(() => this.expire(this.pending.expired(Date.now())), 1000));
    this.started = true;
  }

  async stop() {
    for (const s of this.stops) s();
    for (const t of this.timers) clearInterval(t);
    await this.listen?.unlisten().catch(() => {});
    await this.cacheListen?.unlisten().catch(() => {});
    this.instruments.stop();
    await this.executor.idle();
    await this.activator.idle();
    await this.notesIdle();
    await this.flush().catch(() => {});
    await this.flushTrails().catch(() => {});
    this.started = false;
  }

  /**
   * A plan's stop-out values or a user's plan changed: the open positions concerned take the new
   * threshold, and the margin they now hold, so their stop-out price moves in the risk index.
   */
  async refreshStopouts(where: { userId?: number; planId?: number }) {
    try {
      for (const { id, stopout, margin } of await planStopouts(this.opts.sql, where)) {
        const cur = this.risk.position(id);
        if (!cur || this.risk.isClosing(id) || (cur.stopout === stopout && cur.margin === margin)) continue;
        this.executor.submit(this.risk.addPosition({ ...cur, stopout, margin }));
      }
      this.cacheChanges++;
    } catch (e) { console.error('[core] stop-out refresh', (e as Error).message); }
  }

  reloadInstruments() { return this.instruments.reload(); }

  /** Open positions and balances from PostgreSQL: the evaluator's whole state (of the given partitions). */
  async rebuild(parts = [...this.owned]) {
    if (!parts.length) return 0;
    const rows = await loadOpenPositions(this.opts.sql, this.partition.count, parts);
    const out: CloseRequest[] = [];
    for (const r of rows) this.risk.setBalance(r.input.accountId, r.balance, out);
    for (const r of rows) this.risk.addPosition(r.input, out);
    this.executor.submit(out);
    for (const p of await loadPending(this.opts.sql, this.partition.count, parts)) this.pending.add(p.input);
    return rows.length;
  }

  /** One tick: book, candles, risk, listeners. `prevId`: the bus id before it (for safeTickId). */
  ingest(t: Tick, prevId?: string) {
    const q = this.book.apply(t);
    if (!q) return;
    const inst = this.book.instruments.get(t.symbol)!;
    this.candles.add(inst.id, (t.bid + t.ask) / 2, t.ts);
    this.writer.moved(t.symbol);
    const s = performance.now();
    const closes = this.risk.onTick(inst.id, t.bid, t.ask, t.ts);
    this.evalLatency.observe((performance.now() - s) * 1000);
    if (prevId !== undefined) this.replay.closesAsked(closes, prevId);
    this.trails.ticked(prevId);
    this.executor.submit(closes);
    // pending orders: those expired by this tick's time first, then those its price reaches
    if (this.pending.size) {
      this.expire(this.pending.expired(t.ts));
      const acts = this.pending.onTick(inst.id, t.bid, t.ask, t.ts);
      if (acts.length) {
        if (prevId !== undefined) this.replay.activationsAsked(acts, prevId);
        this.activator.submit(acts);
      }
    }
    for (const fn of this.quoteListeners) fn(q);
  }

  /** Resolves when every activation asked for so far is settled (tests, the test quotes route). */
  async pendingIdle() {
    await this.activator.idle();
    await this.expiring;
  }

  private expiring: Promise<unknown> = Promise.resolve();

  /** Expires pending orders whose time came (each was answered once by the index). */
  private expire(ids: number[]) {
    if (!ids.length) return;
    this.expiring = Promise.all([this.expiring, ...ids.map(async (id) => {
      try {
        const r = await expirePending(this.pendingDeps, id);
        // filled or ended elsewhere: it leaves all the same
        this.pendingGone(id);
        if (!r.ok && r.code !== 'already_closed' && r.code !== 'not_found') this.pending.release(id);
      } catch (e) {
        console.error('[core] pending expiry', (e as Error).message);
        this.pending.release(id);
      }
    })]);
  }

  /** An activation settled (or failed: 'retry', the order fires again later). */
  private activated(a: ActivateInput, outcome: ActivateOutcome) {
    this.replay.activationDone(a.pendingId);
    if (outcome === 'retry') {
      if (!this.replay.releasePending(a.pendingId)) this.pending.release(a.pendingId);
    } else this.pendingGone(a.pendingId);
  }

  /** A pending order is no longer pending: out of the live index and of a replay's. */
  private pendingGone(id: number) {
    this.pending.remove(id);
    this.replay.pendingGone(id);
  }

  /** A pending order placed, modified or ended here: the owner's index learns it; the user's event is published once, here. */
  private onPending(event: 'pending.placed' | 'pending.modified' | 'pending.filled' | 'pending.cancelled', p: PendingView) {
    this.applyPending(p);
    void this.publish(`user:${p.user_id}`, event, p);
  }

  private applyPending(p: PendingView) {
    if (!this.owns(p.balance_id)) return forwardOrder(this.opts.bus, { op: 'pending', pending: p });
    if (p.status === 'pending') {
      this.pending.add(pendingInput(p));
      this.replay.pendingChanged(p);
    } else this.pendingGone(p.id);
  }

  /** Persist candles and the last quote of each instrument that moved. */
  flush() { return this.writer.flush(); }

  /** Resolves when every close notification asked for so far is written and published. */
  notesIdle(): Promise<void> { return this.notices.idle(); }

  // A command settled here: the risk index learns it here when this process owns the balance,
  // else the owner learns it from the bus; the user's realtime event is published once, here.
  private onOpened(o: OrderView, stopout: number, balance: string) {
    this.applyOpened(o, stopout, balance);
    void this.publish(`user:${o.user_id}`, 'order.opened', o);
    void this.publish(EXPOSURE_TOPIC, 'position.opened', positionEvent(o));
  }

  private onClosed(o: OrderView, balanceAfter: string | null) {
    const reason = o.close_reason ?? 'manual';
    this.closesByReason[reason] = (this.closesByReason[reason] ?? 0) + 1;
    this.applyClosed(o, balanceAfter);
    void this.publish(`user:${o.user_id}`, 'order.closed', o);
    void this.publish(EXPOSURE_TOPIC, 'position.closed', positionEvent(o));
    // a position the customer did not close themselves leaves a notification
    if (reason !== 'manual') this.notices.closed(o, reason);
  }

  private onModified(o: OrderView) {
    this.applyModified(o);
    void this.publish(`user:${o.user_id}`, 'order.modified', o);
  }

  private onDeleted(o: OrderView) {
    this.applyDeleted(o);
    void this.publish(`user:${o.user_id}`, 'order.deleted', o);
    // a deleted open position leaves the book too (a closed one left it when it closed)
    if (o.close_time === null) void this.publish(EXPOSURE_TOPIC, 'position.closed', positionEvent(o));
  }

  // a partial close: the part is a closed order, the position is modified (smaller)
  private onPartial(part: OrderView, rest: OrderView, balanceAfter: string | null) {
    const reason = part.close_reason ?? 'manual';
    this.closesByReason[reason] = (this.closesByReason[reason] ?? 0) + 1;
    this.applyPartial(part, rest, balanceAfter);
    void this.publish(`user:${part.user_id}`, 'order.closed', part);
    void this.publish(`user:${rest.user_id}`, 'order.modified', rest);
    // a part the customer did not close themselves (staff) leaves a notification, as a close does
    if (reason !== 'manual') this.notices.closed(part, reason);
  }

  private applyPartial(part: OrderView, rest: OrderView, balanceAfter: string | null) {
    if (!this.owns(rest.balance_id)) return forwardOrder(this.opts.bus, { op: 'partial', order: part, position: rest, balanceAfter });
    if (balanceAfter !== null) {
      this.executor.submit(this.risk.setBalance(rest.balance_id, Number(balanceAfter)));
      this.replay.replayOf(rest.balance_id)?.setBalance(rest.balance_id, Number(balanceAfter));
    }
    // the smaller position: its exposure, margin and stop-out level (applyModified re-adds it)
    this.applyModified(rest, true);
    const rep = this.replay.replayOf(rest.balance_id);
    const r = rep?.position(rest.id);
    if (rep && r && !rep.isClosing(rest.id)) rep.addPosition(positionInput(rest, r.stopout), [], false);
  }

  /** An order command settled by another core process, for the balance's owner. */
  private applyRemote(m: OrderMessage) {
    if (m.op === 'pending') { if (this.owns(m.pending.balance_id)) this.applyPending(m.pending); return; }
    if (!this.owns(m.order.balance_id)) return;
    if (m.op === 'opened') this.applyOpened(m.order, m.stopout, m.balance);
    else if (m.op === 'closed') this.applyClosed(m.order, m.balanceAfter);
    else if (m.op === 'modified') this.applyModified(m.order);
    else if (m.op === 'partial') this.applyPartial(m.order, m.position, m.balanceAfter);
    else this.applyDeleted(m.order);
  }

  private applyOpened(o: OrderView, stopout: number, balance: string) {
    if (!this.owns(o.balance_id)) return forwardOrder(this.opts.bus, { op: 'opened', order: o, stopout, balance });
    // the balance as of the order's transaction: the evaluator may not have seen this account yet
    this.risk.setBalance(o.balance_id, Number(balance));
    this.executor.submit(this.risk.addPosition(positionInput(o, stopout)));
  }

  private applyClosed(o: OrderView, balanceAfter: string | null) {
    if (!this.owns(o.balance_id)) return forwardOrder(this.opts.bus, { op: 'closed', order: o, balanceAfter });
    const after = balanceAfter === null ? undefined : Number(balanceAfter);
    this.replay.closed(o, after);
    this.executor.submit(this.risk.removePosition(o.id, after));
  }

  private applyModified(o: OrderView, keepStop = false) {
    if (!this.owns(o.balance_id)) return forwardOrder(this.opts.bus, { op: 'modified', order: o });
    const cur = this.risk.position(o.id);
    if (cur && !o.close_time && !this.risk.isClosing(o.id)) {
      const next = positionInput(o, cur.stopout);
      // a partial close keeps the stop as trailed so far (the row holds the last one written)
      const mem = keepStop && next.trail ? this.risk.stopOf(o.id) : null;
      const ahead = mem !== null && (next.sl === null || (o.type === 'buy' ? mem > next.sl : mem < next.sl));
      if (ahead) next.sl = mem;
      this.executor.submit(this.risk.addPosition(next));
      if (ahead) this.risk.markTrailed(o.id);
    } else if (cur && !o.close_time) {
      // a close is under way on the old levels: should it be refused (the new level is not
      // reached: migration close-at-trigger-tick), the position is watched on the new ones
      const next = positionInput(o, cur.stopout);
      this.risk.updateLevels(o.id, next.tp, next.sl);
    }
    const rep = this.replay.replayOf(o.balance_id);
    const r = rep?.position(o.id);
    if (rep && r && !o.close_time && !rep.isClosing(o.id)) {
      const next = positionInput(o, r.stopout);
      rep.updateLevels(o.id, next.tp, next.sl);
    }
  }

  private applyDeleted(o: OrderView) {
    if (!this.owns(o.balance_id)) return forwardOrder(this.opts.bus, { op: 'deleted', order: o });
    this.executor.submit(this.risk.removePosition(o.id));
    this.replay.deleted(o);
  }
}
