// Server-side risk on every tick, without scanning every position:
// - take-profit, stop-loss and per-position stop-out are price levels kept in four heaps per
//   instrument (ask rising / ask falling / bid rising / bid falling); a tick looks at the tops;
// - account equity (balance + floating P/L) is kept from per-(account, instrument) exposure.
//   Each account splits its equity into a loss budget per instrument and arms one level per
//   instrument where that budget would be used up; while no level is crossed the account's
//   equity is provably above 0. A crossed level recomputes that one account exactly and either
//   closes everything (equity ≤ 0) or re-arms it.
// Pure in-memory code: no I/O; closes are returned to the caller, who settles them in
// PostgreSQL and then calls confirmClose().
import { TriggerHeap, type Entry } from './heap.ts';
import { TrailSide, type TrailMember, type TrailPos } from './trail.ts';
import { float, type CloseReason, type Exposure, type Side } from '../domain/index.ts';

export interface PositionInput {
  id: number;
  accountId: number;       // balance id
  instrumentId: number;
  side: Side;
  amount: number;
  open: number;
  spread: number;          // spread cost, quote currency
  exchangeRate: number;
  margin: number;
  tp: number | null;
  sl: number | null;
  stopout: number;         // percent
  /** trailing stop distance (price units); the stop-loss then follows the price (risk/trail.ts) */
  trail?: number | null;
}

interface Position extends PositionInput { gen: number; closing: boolean; member?: TrailMember }

/** An account's open positions on one instrument, summed (domain Exposure), and how many. */
interface Held extends Exposure<number> { count: number }

interface Account {
  id: number;
  balance: number;
  positions: Set<Position>;
  exposure: Map<number, Held>;
  gen: number;
  closing: boolean;
}

interface Book {
  bid: number; ask: number; quoted: boolean;
  ts: number;              // the feed time of the quote (ms)
  askUp: TriggerHeap; askDown: TriggerHeap; bidUp: TriggerHeap; bidDown: TriggerHeap;
  live: number;            // positions + armed accounts, to know when to compact
  waiting: Set<Account>;   // accounts whose equity needs this instrument's first fresh price
  trailBuy?: TrailSide;    // buys' trailing stops (P = ask)
  trailSell?: TrailSide;   // sells' trailing stops (P = −bid)
}

/**
 * What a close settles at and records (docs/architecture.md "Prices and freshness"): the bid and
 * ask of the position's instrument its trigger compared, and the feed time of the tick that
 * triggered it (the same tick, unless zero equity was found on a tick of another instrument).
 */
export interface TriggerTick { bid: number; ask: number; ts: number }

export interface CloseRequest {
  positionId: number;
  accountId: number;
  instrumentId: number;
  reason: CloseReason;
  /** the position's instrument's quote the trigger fired on (its tick), never a later one */
  tick: TriggerTick;
  /** a trailing stop's close: the stop-loss it had trailed to (persisted before the close) */
  stop?: number;
}

/** A trailing stop the evaluator moved (takeTrailMoves): the position and its new stop-loss. */
export interface TrailMove { id: number; accountId: number; sl: number }

/** A trailed stop as stored: numeric(24, 10). */
const level = (x: number) => Number(x.toFixed(10));

const TP = 0, SL = 1, SO = 2, ACCT = 3;
const REASON: CloseReason[] = ['tp', 'sl', 'stop_out'];

export class RiskEvaluator {
  private positions = new Map<number, Position>();
  private accounts = new Map<number, Account>();
  private books = new Map<number, Book>();
  /**
   * @param fresh whether an instrument's last price may still be traded on (Book.tradable: the
   *   one rule); a price the evaluator holds but the book calls stale prices nothing here.
   */
  constructor(private fresh: (instrumentId: number) => boolean = () => true) {}
  /** counters for metrics */
  ticks = 0;
  /** a trailing stop moved since the owner last looked (TrailWriter.ticked resets it) */
  trailTicked = false;
  rearms = 0;

  get openPositions() { return this.positions.size; }

  position(id: number): PositionInput | undefined { return this.positions.get(id); }
  isClosing(id: number) { return this.positions.get(id)?.closing ?? false; }

  private book(id: number): Book {
    let b = this.books.get(id);
    if (!b) {
      b = {
        bid: 0, ask: 0, quoted: false, ts: 0, live: 0, waiting: new Set(),
        askUp: new TriggerHeap(1), askDown: new TriggerHeap(-1), bidUp: new TriggerHeap(1), bidDown: new TriggerHeap(-1),
      };
      this.books.set(id, b);
    }
    return b;
  }

  private account(id: number): Account {
    let a = this.accounts.get(id);
    if (!a) {
      a = { id, balance: 0, positions: new Set(), exposure: new Map(), gen: 0, closing: false };
      this.accounts.set(id, a);
    }
    return a;
  }

  /** Seed a quote without evaluating (tests, benchmarks; the core learns prices from ticks only). */
  setQuote(instrumentId: number, bid: number, ask: number, ts = Date.now()) {
    const b = this.book(instrumentId);
    b.bid = bid; b.ask = ask; b.ts = ts; b.quoted = true;
  }

  private priced(instrumentId: number, b: Book) {
    return b.quoted && this.fresh(instrumentId);
  }

  /** A balance changed (deposit, adjustment, a close settled): re-arm the account. */
  setBalance(accountId: number, balance: number, out: CloseRequest[] = []): CloseRequest[] {
    const a = this.account(accountId);
    a.balance = balance;
    if (a.positions.size) this.arm(a, out);
    return out;
  }

  /**
   * @param evaluate check the position against the quote held now (a replay passes false: the
   *   quote it holds may be older than the position, which only meets the ticks after it opened)
   */
  addPosition(input: PositionInput, out: CloseRequest[] = [], evaluate = true): CloseRequest[] {
    if (this.positions.has(input.id)) this.removePosition(input.id);
    const p: Position = { ...input, gen: 0, closing: false };
    this.positions.set(p.id, p);
    const a = this.account(p.accountId);
    a.closing = false;
    a.positions.add(p);
    this.expose(a, p, 1);
    const b = this.book(p.instrumentId);
    b.live++;
    this.pushLevels(p, b);
    this.trail(p, b);
    this.arm(a, out);
    // a position born past its own trigger closes on the next tick; check now too
    if (evaluate && this.priced(p.instrumentId, b)) this.evaluateInstrument(p.instrumentId, b, out);
    return out;
  }

  /** Take-profit / stop-loss changed (modify or staff edit). */
  updateLevels(id: number, tp: number | null, sl: number | null, out: CloseRequest[] = []): CloseRequest[] {
    const p = this.positions.get(id);
    if (!p) return out;
    p.gen++;
    p.tp = tp; p.sl = sl;
    const b = this.book(p.instrumentId);
    if (!p.closing) { this.pushLevels(p, b); this.trail(p, b); }
    if (this.priced(p.instrumentId, b)) this.evaluateInstrument(p.instrumentId, b, out);
    return out;
  }

  /** The close was settled (or the position deleted): forget it and re-arm its account. */
  removePosition(id: number, newBalance?: number, out: CloseRequest[] = []): CloseRequest[] {
    const p = this.positions.get(id);
    if (!p) return out;
    this.positions.delete(id);
    this.untrail(p);
    p.gen++; p.closing = true;
    const a = this.account(p.accountId);
    a.positions.delete(p);
    this.expose(a, p, -1);
    this.book(p.instrumentId).live--;
    if (newBalance !== undefined) a.balance = newBalance;
    if (a.positions.size === 0) a.closing = false;
    else if (!a.closing) this.arm(a, out);
    return out;
  }

  /** A close attempt failed: let the triggers fire again later. */
  releaseClose(id: number) {
    const p = this.positions.get(id);
    if (!p || !p.closing) return;
    p.closing = false;
    p.gen++;
    this.pushLevels(p, this.book(p.instrumentId));
    this.trail(p, this.book(p.instrumentId));
    const a = this.account(p.accountId);
    a.closing = false;
    this.arm(a, []);
  }

  /** the feed time of the tick being evaluated (onTick), for the closes it triggers */
  private tickTs: number | undefined;

  /** Evaluate one tick (`ts`: its feed time, ms); returns the positions to close at it. */
  onTick(instrumentId: number, bid: number, ask: number, ts = Date.now(), out: CloseRequest[] = []): CloseRequest[] {
    this.ticks++;
    const b = this.book(instrumentId);
    b.bid = bid; b.ask = ask; b.ts = ts; b.quoted = true;
    this.tickTs = ts;
    try {
      this.evaluateInstrument(instrumentId, b, out);
      // accounts whose equity waited for this instrument's first fresh price
      if (b.waiting.size) {
        const waiting = [...b.waiting];
        b.waiting.clear();
        for (const a of waiting) this.arm(a, out);
      }
    } finally { this.tickTs = undefined; }
    return out;
  }

  private evaluateInstrument(instrumentId: number, b: Book, out: CloseRequest[]) {
    if (b.trailBuy?.live && b.trailBuy.onPrice(b.ask, (p, S) => this.fire(p as Position, 'sl', out, S))) this.trailTicked = true;
    if (b.trailSell?.live && b.trailSell.onPrice(-b.bid, (p, S) => this.fire(p as Position, 'sl', out, -S))) this.trailTicked = true;
    const rearm = new Set<Account>();
    this.drain(b.askUp, b.ask, out, rearm);
    this.drain(b.askDown, b.ask, out, rearm);
    this.drain(b.bidUp, b.bid, out, rearm);
    this.drain(b.bidDown, b.bid, out, rearm);
    // after draining: a new level that is already crossed waits for the next tick (arm()
    // itself closes at equity ≤ 0, so nothing is missed)
    for (const a of rearm) this.arm(a, out);
    const size = b.askUp.size + b.askDown.size + b.bidUp.size + b.bidDown.size;
    if (size > 8 * b.live + 1024) {
      b.askUp.compact(); b.askDown.compact(); b.bidUp.compact(); b.bidDown.compact();
    }
  }

  private drain(h: TriggerHeap, price: number, out: CloseRequest[], rearm: Set<Account>) {
    while (h.crossed(price)) {
      const e = h.pop()!;
      if (e.ref.gen !== e.gen || e.ref.closing) continue; // stale
      if (e.kind === ACCT) rearm.add(e.ref as Account);
      else this.fire(e.ref as Position, REASON[e.kind], out);
    }
  }

  // Only a priced instrument fires (a tick, or a check against the fresh quote held): the close
  // takes that quote with it, so however long it waits to be settled it settles at the price that
  // crossed the level, for the position's own instrument (zero equity on a tick of another one
  // closes each position at its own instrument's quote, the one the equity was computed with).
  private fire(p: Position, reason: CloseReason, out: CloseRequest[], stop?: number) {
    p.closing = true;
    const b = this.book(p.instrumentId);
    const req: CloseRequest = { positionId: p.id, accountId: p.accountId, instrumentId: p.instrumentId, reason, tick: { bid: b.bid, ask: b.ask, ts: this.tickTs ?? b.ts } };
    if (stop !== undefined) { p.sl = level(stop); req.stop = p.sl; }
    out.push(req);
  }

  private side(p: Position, b: Book): TrailSide {
    return p.side === 'buy' ? (b.trailBuy ??= new TrailSide()) : (b.trailSell ??= new TrailSide());
  }

  /** (Re)place a trailing position's stop in its instrument's trail index, from its stop-loss now. */
  private trail(p: Position, b: Book) {
    this.untrail(p);
    if (!p.trail || !(p.trail > 0) || p.closing) return;
    const S = p.sl && p.sl > 0 ? (p.side === 'buy' ? p.sl : -p.sl) : -Infinity;
    p.member = this.side(p, b).add(p as TrailPos, p.trail, S);
  }

  private untrail(p: Position) {
    if (!p.member) return;
    this.side(p, this.book(p.instrumentId)).remove(p.member);
    p.member = undefined;
  }

  /** A position's stop-loss now (a trailing one's, as trailed so far). */
  stopOf(id: number): number | null {
    const p = this.positions.get(id);
    if (!p) return null;
    if (p.member && !p.member.closing) {
      const S = this.side(p, this.book(p.instrumentId)).stopOf(p.member);
      if (S > -Infinity) return level(p.side === 'buy' ? S : -S);
    }
    return p.sl;
  }

  /** Persist this trailing position's stop with the next moves (a replay handed it over). */
  markTrailed(id: number) {
    const p = this.positions.get(id);
    if (p?.member) this.side(p, this.book(p.instrumentId)).markDirty(p.member);
  }

  /** Trailing stops moved so far, one per position per move (metrics, the bench). */
  get trailMovesCount() {
    let n = 0;
    for (const b of this.books.values()) n += (b.trailBuy?.stopMoves ?? 0) + (b.trailSell?.stopMoves ?? 0);
    return n;
  }

  /** Whether trailing stops moved since the last takeTrailMoves(). */
  get trailMoved() {
    for (const b of this.books.values()) if (b.trailBuy?.moved || b.trailSell?.moved) return true;
    return false;
  }

  /** The trailing stops moved since the last call, each once, with their stop-loss now (kept on the position too). */
  takeTrailMoves(): TrailMove[] {
    const out: TrailMove[] = [];
    const moves: { pos: TrailPos; S: number }[] = [];
    for (const b of this.books.values()) {
      moves.length = 0;
      b.trailBuy?.takeMoves(moves);
      for (const m of moves) { const p = m.pos as Position; p.sl = level(m.S); out.push({ id: p.id, accountId: p.accountId, sl: p.sl }); }
      moves.length = 0;
      b.trailSell?.takeMoves(moves);
      for (const m of moves) { const p = m.pos as Position; p.sl = level(-m.S); out.push({ id: p.id, accountId: p.accountId, sl: p.sl }); }
    }
    return out;
  }

  private pushLevels(p: Position, b: Book) {
    const buy = p.side === 'buy';
    // buy: tp when ask ≥ tp, sl/stop-out when ask ≤ level; sell: tp when bid ≤ tp, sl/stop-out when bid ≥ level
    if (p.tp && p.tp > 0) (buy ? b.askUp : b.bidDown).push(entry(p.tp, TP, p));
    // a trailing stop-loss is watched by the trail index (trail())
    if (p.sl && p.sl > 0 && !p.trail) (buy ? b.askDown : b.bidUp).push(entry(p.sl, SL, p));
    if (p.margin > 0) {
      const level = float.stopOutLevel(p.side, p.amount, p.open, p.spread, p.exchangeRate, p.margin, p.stopout);
      (buy ? b.askDown : b.bidUp).push(entry(level, SO, p));
    }
  }

  private expose(a: Account, p: Position, sign: 1 | -1) {
    let x = a.exposure.get(p.instrumentId);
    if (!x) { x = { long: 0, short: 0, offset: 0, count: 0 }; a.exposure.set(p.instrumentId, x); }
    const e = float.exposure(p.side, p.amount, p.open, p.spread, p.exchangeRate);
    x.long += sign * e.long; x.short += sign * e.short; x.offset += sign * e.offset;
    x.count += sign;
    if (x.count === 0) a.exposure.delete(p.instrumentId);
  }

  /**
   * Partition failover (risk/failover.ts): forget every account `drop` picks and its positions, when this
   * process gives their partition up. Their heap entries go stale (gen) and are skipped.
   */
  dropAccounts(drop: (accountId: number) => boolean) {
    for (const [id, a] of this.accounts) {
      if (!drop(id)) continue;
      for (const p of [...a.positions]) this.removePosition(p.id);
      for (const b of this.books.values()) b.waiting.delete(a);
      a.gen++; a.closing = true;
      this.accounts.delete(id);
    }
  }

  /** Every position held, with whether a close is under way (a replay hands them over). */
  *held(): Iterable<PositionInput & { closing: boolean }> {
    for (const p of this.positions.values()) {
      const { gen: _g, member, ...input } = p;
      yield member ? { ...input, sl: this.stopOf(p.id) } : input;
    }
  }

  /** The balance the evaluator holds for an account (undefined: unknown here). */
  balanceOf(accountId: number): number | undefined { return this.accounts.get(accountId)?.balance; }

  /** An instrument was deleted (it can have no positions): forget its price and heaps. */
  dropInstrument(instrumentId: number) {
    const b = this.books.get(instrumentId);
    if (b && b.live === 0) this.books.delete(instrumentId);
  }

  /** The instruments an account holds open positions in. */
  instrumentsOf(accountId: number): Iterable<number> {
    return this.accounts.get(accountId)?.exposure.keys() ?? [];
  }

  /** Floating P/L of an account at the current quotes (floats, O(instruments held)). */
  floatingPnl(accountId: number): number {
    const a = this.accounts.get(accountId);
    if (!a) return 0;
    let pnl = 0;
    for (const [iid, x] of a.exposure) {
      const b = this.books.get(iid);
      if (!b || !this.priced(iid, b)) continue;
      pnl += float.exposurePnl(x, b.bid, b.ask);
    }
    return pnl;
  }

  equity(accountId: number): number {
    return float.equity(this.accounts.get(accountId)?.balance ?? 0, this.floatingPnl(accountId));
  }

  /** Recompute one account; close everything at equity ≤ 0, else arm a level per instrument. */
  private arm(a: Account, out: CloseRequest[]) {
    this.rearms++;
    a.gen++;
    if (a.closing || a.positions.size === 0) return;
    // without a fresh price for every instrument held, the equity is unknown: close nothing
    // on it; the first fresh tick of the missing instrument arms the account again
    for (const iid of a.exposure.keys()) {
      const b = this.book(iid);
      if (!this.priced(iid, b)) { b.waiting.add(a); return; }
    }
    const eq = float.equity(a.balance, this.floatingPnl(a.id));
    if (eq <= 0) {
      a.closing = true;
      for (const p of a.positions) if (!p.closing) this.fire(p, 'zero_equity', out);
      return;
    }
    const budget = eq / a.exposure.size;
    for (const [iid, x] of a.exposure) {
      const b = this.books.get(iid)!;
      // P/L change = long·Δask − short·Δbid. The spread can at worst close to 0, which bounds
      // the hedged part; the rest moves with one price, giving one level per instrument.
      const spread = b.ask - b.bid;
      const bu = x.long, su = x.short;
      const net = bu - su;
      if (net > 1e-12) {
        b.askDown.push(entry(b.ask + (su * spread - budget) / net, ACCT, a));
      } else if (net < -1e-12) {
        b.bidUp.push(entry(b.bid + (budget - bu * spread) / -net, ACCT, a));
      } else if (su * spread >= budget) {
        b.askDown.push(entry(Infinity, ACCT, a)); // fully hedged and the spread alone could use the budget: recheck each tick
      }
    }
  }
}

function entry(key: number, kind: number, ref: { gen: number; closing: boolean }): Entry {
  return { key, kind, ref, gen: ref.gen };
}
