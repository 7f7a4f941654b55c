// Failover of a core's partitions (partitions.ts hands them over): a partition taken over from a
// dead core replays the ticks it missed from the bus through a private evaluator before its
// positions join the live one, so a level crossed while the partition had no owner closes at the
// crossing tick's price and time, once (docs/architecture.md "Prices and freshness").
import type { Bus, BusMessage } from '../bus/index.ts';
import { idAfter } from '../bus/index.ts';
import { TICKS } from '../bus/streams.ts';
import type { Book, Tick } from '../book/book.ts';
import { closeOrder, closeOrders, type OrderDeps, type TriggerAt } from '../orders/service.ts';
import { RiskEvaluator, type CloseRequest, type PositionInput } from './evaluator.ts';
import type { CloseExecutor } from './executor.ts';
import type { OpenPosition } from './open-positions.ts';
import { PendingIndex, type Activation, type PendingInput } from './pending.ts';
import { pendingInput, type ActivateInput } from '../orders/pending.ts';
import type { PendingView } from '../orders/view.ts';

/** A close the evaluator asked for; `replayed`: found replaying missed ticks (closed with its tick's time). */
export type TickClose = CloseRequest & { replayed?: true };

/** The tick a close settles at and records (CloseInput.at): the one its trigger fired on. */
const triggerAt = (r: TickClose): TriggerAt => ({ bid: r.tick.bid, ask: r.tick.ask, time: new Date(r.tick.ts), stamp: r.replayed });

/** A partition taken over and catching up on the ticks it missed (takeOver). */
interface Replay { risk: RiskEvaluator; pending: PendingIndex; cursor: string; ticks: number }

export interface FailoverDeps {
  bus: Bus;
  book: Book;
  /** the live evaluator */
  risk: RiskEvaluator;
  /** the close executor's queue */
  submit: (closes: CloseRequest[]) => void;
  /** the partitions this process holds (shared with the core) */
  owned: Set<number>;
  partitionOf: (balanceId: number) => number;
  /** the id of the last tick the live stream read */
  lastTickId: () => string;
  /** rebuilds partitions from PostgreSQL into the live evaluator */
  rebuild: (parts: number[]) => Promise<number>;
  loadOpen: (parts: number[]) => Promise<OpenPosition[]>;
  /** the live pending index */
  pending: PendingIndex;
  loadPending: (parts: number[]) => Promise<{ createdMs: number; input: PendingInput }[]>;
  /** the pending activator's queue */
  activate: (acts: ActivateInput[]) => void;
  /** expires pending orders whose time came */
  expire: (ids: number[]) => void;
}

export class FailoverReplay {
  /** Partitions taken over and still replaying the ticks they missed. */
  private replays = new Map<number, Replay>();
  /** in-flight closes a tick asked for: position id → the id of the tick before it */
  private tickCloses = new Map<number, string>();
  /** in-flight activations a tick asked for: pending order id → the id of the tick before it */
  private tickActivations = new Map<number, string>();
  /** positions a replay was closing when it handed over: back to the live index if the close fails */
  private handover = new Map<number, { input: PositionInput }>();
  /** positions closed while a replay was loading (a close message may beat the rebuild's read) */
  private closedDuringReplay = new Set<number>();
  /** failover counters (metrics) */
  readonly counters = { takeovers: 0, releases: 0, replayedTicks: 0, replayCloses: 0, replayActivations: 0, lastTakeoverMs: 0 };

  constructor(private d: FailoverDeps) {}

  /** Partitions owned and evaluating live (not replaying): what the lease manager may save. */
  livePartitions() { return [...this.d.owned].filter((p) => !this.replays.has(p)).sort((a, b) => a - b); }
  replaying() { return [...this.replays.keys()].sort((a, b) => a - b); }

  /** The replay evaluator of a balance's partition, while it replays. */
  replayOf(balanceId: number) { return this.replays.get(this.d.partitionOf(balanceId))?.risk; }

  /** A live tick (bus id `prevId` before it) asked for these closes. */
  closesAsked(closes: CloseRequest[], prevId: string) {
    for (const c of closes) this.tickCloses.set(c.positionId, prevId);
  }

  /**
   * The stream id up to which every tick is processed and every close it asked for has
   * settled: a new owner replays from here, so a crossing whose close had not committed when
   * this process died is seen again (the conditional close keeps it once).
   */
  safeTickId() {
    let safe = this.d.lastTickId();
    for (const id of this.tickCloses.values()) if (idAfter(safe, id)) safe = id;
    for (const id of this.tickActivations.values()) if (idAfter(safe, id)) safe = id;
    return safe;
  }

  /** A live tick (bus id `prevId` before it) asked for these pending activations. */
  activationsAsked(acts: Activation[], prevId: string) {
    for (const a of acts) this.tickActivations.set(a.pendingId, prevId);
  }

  /** An activation settled (or failed): its tick no longer holds the safe id back. */
  activationDone(id: number) { this.tickActivations.delete(id); }

  /** A pending order no longer pending: out of every replay too. */
  pendingGone(id: number) {
    for (const r of this.replays.values()) r.pending.remove(id);
    if (this.replays.size) this.gonePending.add(id); // a loading replay may have read it as pending
  }

  /** pending orders that stopped being pending while a replay was loading */
  private gonePending = new Set<number>();

  /** A pending order modified: a replay holding it watches the new price. */
  pendingChanged(p: PendingView) {
    const rep = this.replays.get(this.d.partitionOf(p.balance_id));
    if (rep?.pending.get(p.id)) rep.pending.add(pendingInput(p));
  }

  /** An activation that failed while its replay still holds the order: it fires again there. */
  releasePending(id: number) {
    for (const r of this.replays.values()) if (r.pending.isFiring(id)) { r.pending.release(id); return true; }
    return false;
  }

  /**
   * The close executor's statements: every close settles at the tick its trigger fired on and
   * records it, however long it waited in the queue (the book has moved on since); a batch is
   * one statement, each order at its own trigger tick; a replayed close also takes its tick's
   * time, so it goes alone.
   */
  closers(orders: OrderDeps) {
    return {
      close: async (r: TickClose) => {
        try { return await closeOrder(orders, { orderId: r.positionId, reason: r.reason, at: triggerAt(r) }); }
        finally { this.tickCloses.delete(r.positionId); }
      },
      closeMany: async (rs: TickClose[]) => {
        try {
          const out: Awaited<ReturnType<typeof closeOrder>>[] = new Array(rs.length);
          const live: number[] = [];
          for (let i = 0; i < rs.length; i++) if (!rs[i].replayed) live.push(i);
          if (live.length) {
            const res = await closeOrders(orders, live.map((i) => ({ orderId: rs[i].positionId, reason: rs[i].reason, instrumentId: rs[i].instrumentId, at: triggerAt(rs[i]) })));
            live.forEach((i, k) => { out[i] = res[k]; });
          }
          for (let i = 0; i < rs.length; i++) {
            if (rs[i].replayed) out[i] = await closeOrder(orders, { orderId: rs[i].positionId, reason: rs[i].reason, at: triggerAt(rs[i]) });
          }
          return out;
        } finally {
          for (const r of rs) this.tickCloses.delete(r.positionId);
        }
      },
      forget: (id: number) => { this.handover.delete(id); this.d.submit(this.d.risk.removePosition(id)); },
      release: (id: number) => {
        const h = this.handover.get(id);
        this.handover.delete(id);
        // a replayed close that failed: the position goes on being watched, live
        if (h?.input && !this.d.risk.position(id)) this.d.submit(this.d.risk.addPosition(h.input));
        else this.d.risk.releaseClose(id);
      },
    } satisfies Pick<ConstructorParameters<typeof CloseExecutor>[0], 'close' | 'closeMany' | 'forget' | 'release'>;
  }

  /** An order closed (here or on another core): out of the replay of its partition too. */
  closed(o: { id: number; balance_id: number }, balanceAfter: number | undefined) {
    this.handover.delete(o.id);
    const rep = this.replayOf(o.balance_id);
    if (rep) { this.closedDuringReplay.add(o.id); rep.removePosition(o.id, balanceAfter); }
  }

  /** An order deleted by staff: out of the replay of its partition too. */
  deleted(o: { id: number; balance_id: number }) {
    const rep = this.replayOf(o.balance_id);
    if (rep) { this.closedDuringReplay.add(o.id); rep.removePosition(o.id); }
  }

  /**
   * This process now holds the lease of partition `p`. Its positions are rebuilt from
   * PostgreSQL and, when the previous owner saved how far it got (`fromId`), the ticks since
   * then are replayed through a private evaluator before the positions join the live one: a
   * level crossed while the partition had no owner closes at the crossing tick's price, with
   * its time (closeOrder `at`), even if the price has gone back since. A replayed tick is a
   * real feed tick, fresh at its own time, so the fresh-price rule holds: no saved quote prices
   * anything. A position is only replayed against ticks after it was opened.
   */
  async takeOver(p: number, fromId: string | null) {
    const { bus, book, owned } = this.d;
    const started = performance.now();
    owned.add(p);
    this.counters.takeovers++;
    if (!fromId || bus.kind === 'memory') {
      await this.d.rebuild([p]);
      this.counters.lastTakeoverMs = Math.round(performance.now() - started);
      return;
    }
    const rep: Replay = { risk: new RiskEvaluator(() => true), pending: new PendingIndex(), cursor: fromId, ticks: 0 };
    this.replays.set(p, rep);
    try {
      const [rows, pend] = await Promise.all([this.d.loadOpen([p]), this.d.loadPending([p])]);
      let nextPending = 0;
      for (const r of rows) rep.risk.setBalance(r.input.accountId, r.balance);
      let next = 0;
      let lastFrom = fromId; // the id before the last tick replayed
      // each close carries the tick its trigger fired on (price and time: CloseRequest.tick)
      const submit = (closes: CloseRequest[], from: string) => {
        for (const c of closes as TickClose[]) {
          c.replayed = true;
          this.tickCloses.set(c.positionId, from);
          this.counters.replayCloses++;
        }
        this.d.submit(closes);
      };
      // a position joins without being checked against the quote held (older than the position):
      // it meets the ticks after it was opened only
      const openUntil = (ms: number) => {
        for (; next < rows.length && rows[next].openMs <= ms; next++) {
          if (!rep.risk.position(rows[next].input.id) && this.closedDuringReplay.has(rows[next].input.id)) continue;
          submit(rep.risk.addPosition(rows[next].input, [], false), lastFrom);
        }
        // pending orders likewise meet only the ticks after they were placed
        for (; nextPending < pend.length && pend[nextPending].createdMs <= ms; nextPending++) {
          if (!this.gonePending.has(pend[nextPending].input.id)) rep.pending.add(pend[nextPending].input);
        }
      };
      const stream = bus as { head?: (s: string) => Promise<string> };
      const head = await stream.head?.(TICKS);
      if (head && head !== '0-0' && idAfter(head, fromId) && fromId !== '0-0') {
        console.error(`[core] partition ${p}: ticks after ${fromId} are no longer kept (oldest ${head}): replaying from there`);
      }
      for (;;) {
        if (!owned.has(p)) return; // given up meanwhile
        const batch: BusMessage<Tick>[] = await bus.range<Tick>(TICKS, rep.cursor, 2000);
        // from here on synchronous: the live stream cannot move under us
        for (const m of batch) {
          if (idAfter(m.id, this.d.lastTickId())) break; // the live stream has not read it yet: it will
          const t = m.data;
          const inst = book.instruments.get(t.symbol);
          const from = rep.cursor;
          rep.cursor = m.id;
          if (!inst || !(t.bid > 0) || !(t.ask >= t.bid)) continue;
          openUntil(Number(m.id.split('-')[0]));
          lastFrom = from;
          rep.ticks++;
          this.counters.replayedTicks++;
          submit(rep.risk.onTick(inst.id, t.bid, t.ask, t.ts), from);
          // a pending order expired before this tick's time is expired, not filled; one its price
          // reaches fills at this tick (its price, its time), once
          this.d.expire(rep.pending.expired(t.ts));
          const acts = rep.pending.onTick(inst.id, t.bid, t.ask, t.ts).map((a) => ({ ...a, replayed: true as const }));
          if (acts.length) {
            this.activationsAsked(acts, from);
            this.counters.replayActivations += acts.length;
            this.d.activate(acts);
          }
        }
        if (!idAfter(this.d.lastTickId(), rep.cursor) || !batch.length) break;
      }
      if (!owned.has(p)) return; // the lease was lost meanwhile: the next owner replays it
      // caught up (still synchronous since the last read): the positions join the live evaluator
      openUntil(Infinity);
      const out: CloseRequest[] = [];
      const balances = new Set<number>();
      const risk = this.d.risk;
      for (const h of rep.risk.held()) {
        const { closing, ...input } = h;
        if (closing) { this.handover.set(input.id, { input }); continue; }
        if (!balances.has(input.accountId)) {
          balances.add(input.accountId);
          risk.setBalance(input.accountId, rep.risk.balanceOf(input.accountId) ?? 0, out);
        }
        risk.addPosition(input, out);
        // a stop the replay trailed is written with the live process's next flush
        if (input.trail) risk.markTrailed(input.id);
      }
      this.d.submit(out);
      // pending orders join the live index (those being activated as firing: a failed one is released there)
      for (const h of rep.pending.all()) {
        const { closing, ...input } = h;
        if (!this.d.pending.get(input.id) || closing) this.d.pending.add(input, closing);
      }
    } finally {
      this.replays.delete(p);
      this.closedDuringReplay.clear();
      this.gonePending.clear();
    }
    this.counters.lastTakeoverMs = Math.round(performance.now() - started);
  }

  /**
   * The lease of partition `p` is given up (rebalancing, shutdown): its positions and accounts
   * leave the evaluator; the new owner rebuilds them. Resolves to the id to replay from.
   */
  async giveUp(p: number) {
    this.d.owned.delete(p);
    this.replays.delete(p);
    this.counters.releases++;
    this.d.risk.dropAccounts((a) => this.d.partitionOf(a) === p);
    this.d.pending.dropAccounts((a) => this.d.partitionOf(a) === p);
    return this.safeTickId();
  }
}
