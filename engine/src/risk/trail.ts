// Trailing stops of one instrument and side, without touching every position on every tick
// (docs/specs.md#trailing-stop). Prices are taken in "P-space", where a better price is a larger
// one: a buy's ask (P = ask, its stop S = stop-loss) and a sell's bid negated (P = −bid, S = −stop-loss).
// A stop fires when P ≤ S, and trails as S = max(S, P − d) — never back.
// - A loose member (its stop not yet reached by the price's rise) waits in a heap keyed S + d:
//   when P passes that key the member joins a group.
// - A group's members all trail the same anchor M (the best price since they joined): each
//   stop is M − d, computed when needed. A new best price moves a whole group at once (M = P),
//   whatever its size; groups passed by the same tick merge (the smaller into the larger).
// - A group fires its members from the smallest distance: P ≤ M − d ⟺ d ≤ M − P.
// Moved groups are remembered (dirty) until takeMoves() hands their stops over for persistence.
import { TriggerHeap, type Entry } from './heap.ts';

export interface TrailPos { id: number; closing: boolean }

export interface TrailMember {
  pos: TrailPos;
  d: number;
  /** the stop while loose (P-space); −Infinity: none yet */
  S: number;
  group: Group | null;
  gen: number;
  closing: boolean;
}

interface Group {
  M: number;
  members: TriggerHeap;       // by distance, smallest first
  size: number;
  gen: number; closing: boolean;
  stop: { gen: number; closing: boolean; group: Group };
}

const entry = (key: number, ref: { gen: number; closing: boolean }): Entry => ({ key, kind: 0, ref, gen: ref.gen });

export class TrailSide {
  private loose = new TriggerHeap(1);       // key S + d: moves when P > key
  private looseStop = new TriggerHeap(-1);  // key S: fires when P ≤ S
  private groups = new TriggerHeap(1);      // key M: moves when P > M
  private groupStops = new TriggerHeap(-1); // key M − smallest d: fires when P ≤ key
  private dirty = new Set<Group>();
  private dirtyLoose = new Set<TrailMember>();
  live = 0;
  /** stops moved, one per position per move (metrics, the bench) */
  stopMoves = 0;

  /** A trailing position with distance `d` and stop `S` (P-space; −Infinity: none). */
  add(pos: TrailPos, d: number, S: number): TrailMember {
    const m: TrailMember = { pos, d, S, group: null, gen: 0, closing: false };
    this.live++;
    this.loose.push(entry(S + d, m));
    if (S > -Infinity) this.looseStop.push(entry(S, m));
    return m;
  }

  remove(m: TrailMember) {
    if (m.closing) return;
    m.closing = true; m.gen++;
    this.live--;
    if (m.group) m.group.size--;
    this.dirtyLoose.delete(m);
  }

  /** The member's stop now (P-space). */
  stopOf(m: TrailMember) { return m.group ? m.group.M - m.d : m.S; }

  /** Persist this member's stop with the next moves (a stop learned elsewhere: a replay's hand-over). */
  markDirty(m: TrailMember) { if (!m.group) this.dirtyLoose.add(m); else this.dirty.add(m.group); }

  private valid(e: Entry, g?: Group) {
    const m = e.ref as TrailMember;
    return e.gen === m.gen && !m.closing && !m.pos.closing && (g === undefined || m.group === g);
  }

  /** One price: trail what it improves, then fire what it reaches (fire gets the stop, P-space); true when stops moved. */
  onPrice(P: number, fire: (pos: TrailPos, S: number) => void): boolean {
    // 1. moves: every group and loose member the price passed joins one group anchored at P
    let merged: Group[] | undefined;
    let joined: TrailMember[] | undefined;
    while (this.groups.size && this.groups.peek()!.key < P) {
      const e = this.groups.pop()!;
      const g = e.ref as Group;
      if (e.gen !== g.gen || g.closing) continue;
      (merged ??= []).push(g);
    }
    while (this.loose.size && this.loose.peek()!.key < P) {
      const e = this.loose.pop()!;
      if (!this.valid(e) || (e.ref as TrailMember).group) continue;
      (joined ??= []).push(e.ref as TrailMember);
    }
    if (merged || joined) {
      let base: Group | undefined;
      for (const g of merged ?? []) if (!base || g.size > base.size) base = g;
      if (!base) {
        const g = { M: P, members: new TriggerHeap(1), size: 0, gen: 0, closing: false } as Group;
        g.stop = { gen: 0, closing: false, group: g };
        base = g;
      }
      for (const g of merged ?? []) {
        if (g === base) continue;
        g.closing = true; g.stop.closing = true;
        this.dirty.delete(g);
        for (const e of g.members.items) if (this.valid(e, g)) this.join(base, e.ref as TrailMember);
      }
      for (const m of joined ?? []) { this.dirtyLoose.delete(m); this.join(base, m); }
      base.M = P;
      base.gen++;
      this.stopMoves += base.size;
      this.groups.push(entry(P, base));
      this.armStop(base);
      this.dirty.add(base);
    }
    const moved = merged !== undefined || joined !== undefined;
    // 2. stops
    while (this.looseStop.crossed(P)) {
      const e = this.looseStop.pop()!;
      const m = e.ref as TrailMember;
      if (!this.valid(e) || m.group) continue;
      fire(m.pos, m.S);
    }
    while (this.groupStops.crossed(P)) {
      const e = this.groupStops.pop()!;
      const s = e.ref as Group['stop'];
      if (e.gen !== s.gen || s.closing) continue;
      const g = s.group;
      const h = g.members;
      while (h.size) {
        const top = h.peek()!;
        if (!this.valid(top, g)) { h.pop(); continue; }
        if (P > g.M - top.key) break;
        h.pop();
        const m = top.ref as TrailMember;
        fire(m.pos, g.M - m.d);
      }
      this.armStop(g);
    }
    this.compact();
    return moved;
  }

  private join(g: Group, m: TrailMember) {
    m.gen++; // its loose entries go stale
    m.group = g;
    g.members.push(entry(m.d, m));
    g.size++;
  }

  /** The group's firing level: M − its smallest live distance. */
  private armStop(g: Group) {
    g.stop.gen++;
    const h = g.members;
    while (h.size && !this.valid(h.peek()!, g)) h.pop();
    if (!h.size) { g.closing = true; g.stop.closing = true; this.dirty.delete(g); return; }
    if (h.size > 2 * g.size + 64) h.compact();
    this.groupStops.push(entry(g.M - h.peek()!.key, g.stop));
  }

  private compact() {
    const cap = 2 * this.live + 64;
    if (this.groups.size > cap) this.groups.compact();
    if (this.groupStops.size > cap) this.groupStops.compact();
    if (this.loose.size > cap) this.loose.compact();
    if (this.looseStop.size > cap) this.looseStop.compact();
  }

  /** The stops moved since the last call (P-space), each member once; forgets them. */
  takeMoves(out: { pos: TrailPos; S: number }[] = []) {
    for (const g of this.dirty) {
      if (g.closing) continue;
      for (const e of g.members.items) if (this.valid(e, g)) out.push({ pos: (e.ref as TrailMember).pos, S: g.M - (e.ref as TrailMember).d });
    }
    // a loose member without a stop yet (−Infinity) has nothing to write
    for (const m of this.dirtyLoose) if (!m.closing && !m.pos.closing && !m.group && Number.isFinite(m.S)) out.push({ pos: m.pos, S: m.S });
    this.dirty.clear();
    this.dirtyLoose.clear();
    return out;
  }

  /** Whether moves wait to be taken. */
  get moved() { return this.dirty.size > 0 || this.dirtyLoose.size > 0; }
}
