// A binary heap of trigger entries ordered by price: min-heap for "fires when the price rises
// to the level", max-heap for "fires when it falls to it". Entries go stale instead of being
// removed (a closed position, re-armed account); the evaluator skips them when popped and
// the owner compacts the heap when stale entries pile up.

export interface Entry {
  key: number;       // the trigger price
  kind: number;      // what fires (see evaluator)
  ref: { gen: number; closing: boolean };
  gen: number;       // ref.gen when pushed; a mismatch means stale
}

export class TriggerHeap {
  items: Entry[] = [];
  /** sign +1: min-heap (fires at or above key); −1: max-heap (fires at or below key). */
  constructor(private sign: 1 | -1) {}

  get size() { return this.items.length; }
  peek(): Entry | undefined { return this.items[0]; }

  private less(a: Entry, b: Entry) { return this.sign * a.key < this.sign * b.key; }

  push(e: Entry) {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }

  pop(): Entry | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length && last) {
      a[0] = last;
      this.down(0);
    }
    return top;
  }

  private down(i: number) {
    const a = this.items, n = a.length;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < n && this.less(a[l], a[m])) m = l;
      if (r < n && this.less(a[r], a[m])) m = r;
      if (m === i) return;
      [a[i], a[m]] = [a[m], a[i]];
      i = m;
    }
  }

  /** Whether the top entry's level is crossed by `price`. */
  crossed(price: number): boolean {
    const t = this.items[0];
    return t !== undefined && (this.sign === 1 ? price >= t.key : price <= t.key);
  }

  /** Drop stale entries and re-heapify: O(n), run only when stale ones dominate. */
  compact() {
    this.items = this.items.filter((e) => e.ref.gen === e.gen && !e.ref.closing);
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }
}
