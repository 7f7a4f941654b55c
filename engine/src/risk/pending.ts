// The trigger levels of pending orders (docs/specs.md#pending-orders), beside the positions' in
// the RiskEvaluator and fed the same ticks (Core.ingest). Per instrument four heaps of the kind
// of risk/heap.ts, each popped only while its top is reached, so a tick costs O(1) when nothing
// fires and O(k log n) for k activations. A pending order fills at its side's mark, as a market
// order opens (a buy at the ask, a sell at the bid):
//   Buy Limit  when ask <= price   (max-heap on price: the highest fires first)
//   Buy Stop   when ask >= price   (min-heap)
//   Sell Limit when bid >= price   (min-heap)
//   Sell Stop  when bid <= price   (max-heap)
// An order that fired is `firing` until its activation settles (then it leaves), or is handed
// back (release) when the statement failed, to fire again on a later tick. Expiry times are a
// fifth heap over all instruments. Entries go stale (gen) instead of being removed.
import { TriggerHeap, type Entry } from './heap.ts';

export interface PendingInput {
  id: number; accountId: number; instrumentId: number; side: 'buy' | 'sell'; orderType: 'limit' | 'stop';
  price: number; expiresMs: number | null;
}

/** The tick an activation fills at (its side's mark) and records. */
export interface PendingTick { bid: number; ask: number; ts: number }

export interface Activation { pendingId: number; accountId: number; instrumentId: number; tick: PendingTick }

interface Held extends PendingInput { gen: number; closing: boolean }

interface Heaps { buyLimit: TriggerHeap; buyStop: TriggerHeap; sellLimit: TriggerHeap; sellStop: TriggerHeap }

const heapOf = (h: Heaps, side: 'buy' | 'sell', type: 'limit' | 'stop') =>
  side === 'buy' ? (type === 'limit' ? h.buyLimit : h.buyStop) : (type === 'limit' ? h.sellLimit : h.sellStop);

/** Whether a quote reaches a pending order's price (the rules above); the naive scan and tests use it too. */
export function reaches(p: Pick<PendingInput, 'side' | 'orderType' | 'price'>, bid: number, ask: number): boolean {
  if (p.side === 'buy') return p.orderType === 'limit' ? ask <= p.price : ask >= p.price;
  return p.orderType === 'limit' ? bid >= p.price : bid <= p.price;
}

export class PendingIndex {
  private held = new Map<number, Held>();
  private byInstrument = new Map<number, Heaps>();
  private expiries = new TriggerHeap(1);
  private stale = 0;

  get size() { return this.held.size; }
  get(id: number): PendingInput | undefined { return this.held.get(id); }
  isFiring(id: number) { return this.held.get(id)?.closing ?? false; }
  /** every order held, with whether it is firing (a takeover's hand-over) */
  all(): (PendingInput & { closing: boolean })[] { return [...this.held.values()].map(({ gen: _g, ...h }) => h); }

  private heaps(instrumentId: number): Heaps {
    let h = this.byInstrument.get(instrumentId);
    if (!h) {
      h = { buyLimit: new TriggerHeap(-1), buyStop: new TriggerHeap(1), sellLimit: new TriggerHeap(1), sellStop: new TriggerHeap(-1) };
      this.byInstrument.set(instrumentId, h);
    }
    return h;
  }

  private arm(h: Held) {
    heapOf(this.heaps(h.instrumentId), h.side, h.orderType).push({ key: h.price, kind: 0, ref: h, gen: h.gen });
    if (h.expiresMs !== null) this.expiries.push({ key: h.expiresMs, kind: 1, ref: h, gen: h.gen });
  }

  /**
   * Adds or replaces (a modify) an order; an order firing keeps firing on its old price.
   * `firing`: its activation is under way (a takeover's hand-over): held, not armed, until released.
   */
  add(p: PendingInput, firing = false) {
    const cur = this.held.get(p.id);
    if (!cur && firing) { this.held.set(p.id, { ...p, gen: 0, closing: true }); return; }
    if (cur) {
      if (cur.closing) { Object.assign(cur, p); return; }
      cur.gen++; this.stale++;
      Object.assign(cur, p);
      this.arm(cur);
    } else {
      const h: Held = { ...p, gen: 0, closing: false };
      this.held.set(p.id, h);
      this.arm(h);
    }
    this.maybeCompact();
  }

  /** An order filled, cancelled or expired (here or elsewhere): it leaves. */
  remove(id: number) {
    const h = this.held.get(id);
    if (!h) return;
    h.gen++; this.stale++;
    this.held.delete(id);
    this.maybeCompact();
  }

  /** An activation that failed (the statement threw): the order fires again on a later tick. */
  release(id: number) {
    const h = this.held.get(id);
    if (!h || !h.closing) return;
    h.closing = false; h.gen++; this.stale++;
    this.arm(h);
  }

  /** Drops the orders of some accounts (a partition given up). */
  dropAccounts(which: (accountId: number) => boolean) {
    for (const [id, h] of this.held) if (which(h.accountId)) this.remove(id);
  }

  /** The orders one tick of an instrument reaches, in the order they were placed (id); each fires once (until released). */
  onTick(instrumentId: number, bid: number, ask: number, ts: number, out: Activation[] = []): Activation[] {
    const h = this.byInstrument.get(instrumentId);
    if (!h) return out;
    const tick = { bid, ask, ts };
    const from = out.length;
    this.drain(h.buyLimit, ask, tick, out);
    this.drain(h.buyStop, ask, tick, out);
    this.drain(h.sellLimit, bid, tick, out);
    this.drain(h.sellStop, bid, tick, out);
    if (out.length - from > 1) {
      const mine = out.splice(from).sort((a, b) => a.pendingId - b.pendingId);
      for (const a of mine) out.push(a);
    }
    return out;
  }

  private drain(heap: TriggerHeap, price: number, tick: PendingTick, out: Activation[]) {
    while (heap.crossed(price)) {
      const e = heap.pop()! as Entry & { ref: Held };
      const h = e.ref;
      if (e.gen !== h.gen || h.closing) { this.stale = Math.max(0, this.stale - 1); continue; }
      h.closing = true;
      out.push({ pendingId: h.id, accountId: h.accountId, instrumentId: h.instrumentId, tick });
    }
  }

  /** The orders whose expiry time has come (not firing); each is answered once (until released). */
  expired(nowMs: number): number[] {
    const out: number[] = [];
    while (this.expiries.crossed(nowMs)) {
      const e = this.expiries.pop()! as Entry & { ref: Held };
      const h = e.ref;
      if (e.gen !== h.gen || h.closing) continue;
      h.closing = true;
      out.push(h.id);
    }
    return out;
  }

  private maybeCompact() {
    if (this.stale < 1024 || this.stale < this.held.size) return;
    for (const h of this.byInstrument.values()) for (const x of [h.buyLimit, h.buyStop, h.sellLimit, h.sellStop]) x.compact();
    this.expiries.compact();
    this.stale = 0;
  }
}
