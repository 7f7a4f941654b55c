// bench:engine — 100,000 open positions over 10,000 accounts and 60 instruments, take-profit
// and stop-loss set, and 100,000 pending orders (Buy/Sell Limit/Stop, risk/pending.ts) beside
// them, 1,000,000 ticks through the risk evaluator and the pending index in one process;
// compared with a reference evaluator that scans every open position and every pending order on
// every tick (it lives only here).
// Beside them, 50,000 trailing-stop positions (BENCH_TRAILING) on 60 instruments of their own
// whose price rises on every one of their ticks (every other tick of the run), so every such tick
// moves every trailing stop of its instrument; the moves are taken as the core's throttled flush
// takes them (TrailWriter: once a second, each moved position once) and the rows it would write
// are counted: writes/s stay bounded by the trailing positions, whatever the tick rate.
import { RiskEvaluator, type PositionInput } from '../src/risk/evaluator.ts';
import { PendingIndex, reaches, type PendingInput } from '../src/risk/pending.ts';
import { autoCloseReason } from '../src/domain/index.ts';
import { rng } from '../src/feed/rng.ts';
import { percentile } from './stats.ts';

const POSITIONS = Number(process.env.BENCH_POSITIONS ?? 100_000);
const PENDING = Number(process.env.BENCH_PENDING ?? 100_000);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 10_000);
const INSTRUMENTS = 60;
const TICKS = Number(process.env.BENCH_TICKS ?? 1_000_000);
const NAIVE_TICKS = Number(process.env.BENCH_NAIVE_TICKS ?? 500);
const SEED = Number(process.env.BENCH_SEED ?? 7);
const TRAILING = Number(process.env.BENCH_TRAILING ?? 50_000);
const TRAIL_BASE = 1000; // the trailing positions' instruments: TRAIL_BASE + 0..INSTRUMENTS-1
const FLUSH_MS = 1000;

function world(seed: number) {
  const rnd = rng(seed);
  const mid = Array.from({ length: INSTRUMENTS }, (_, i) => (i % 3 === 0 ? 100 + rnd() * 50 : 1 + rnd()));
  const spread = mid.map((m) => m * 0.0001);
  const balances = Array.from({ length: ACCOUNTS }, () => 5_000 + rnd() * 20_000);
  const positions: PositionInput[] = [];
  for (let id = 1; id <= POSITIONS; id++) {
    const i = Math.floor(rnd() * INSTRUMENTS);
    const side = rnd() < 0.5 ? 'buy' : 'sell';
    const open = side === 'buy' ? mid[i] + spread[i] : mid[i];
    const amount = Math.round((1_000 / mid[i]) * (1 + rnd() * 9));
    const dist = mid[i] * (0.002 + rnd() * 0.02);
    positions.push({
      id, accountId: 1 + Math.floor(rnd() * ACCOUNTS), instrumentId: i, side, amount, open,
      spread: amount * spread[i] * 0.5, exchangeRate: 1, margin: (open * amount) / 100, stopout: 50,
      tp: side === 'buy' ? open + dist : open - dist,
      sl: side === 'buy' ? open - dist : open + dist,
    });
  }
  // pending orders 0.2 % to 2.2 % away from the price, on their valid side
  const pending: PendingInput[] = [];
  for (let id = 1; id <= PENDING; id++) {
    const i = Math.floor(rnd() * INSTRUMENTS);
    const side = rnd() < 0.5 ? 'buy' : 'sell';
    const orderType = rnd() < 0.5 ? 'limit' : 'stop';
    const below = (side === 'buy') === (orderType === 'limit');
    const dist = mid[i] * (0.002 + rnd() * 0.02);
    pending.push({ id, accountId: 1 + Math.floor(rnd() * ACCOUNTS), instrumentId: i, side, orderType, price: below ? mid[i] - dist : mid[i] + dist, expiresMs: null });
  }
  return { rnd, mid, spread, balances, positions, pending };
}

function ticks(seed: number, mid: number[], spread: number[], n: number) {
  const rnd = rng(seed);
  const inst = new Int32Array(n), bid = new Float64Array(n), ask = new Float64Array(n);
  const m = mid.slice();
  for (let t = 0; t < n; t++) {
    const i = Math.floor(rnd() * INSTRUMENTS);
    m[i] *= 1 + (rnd() - 0.5) * 0.0004;
    inst[t] = i; bid[t] = m[i]; ask[t] = m[i] + spread[i] * (0.5 + rnd());
  }
  return { inst, bid, ask };
}

// ---- indexed evaluator
const w = world(SEED);
const r = new RiskEvaluator();
for (let i = 0; i < INSTRUMENTS; i++) r.setQuote(i, w.mid[i], w.mid[i] + w.spread[i]);
for (let a = 0; a < ACCOUNTS; a++) r.setBalance(a + 1, w.balances[a]);
for (const p of w.positions) r.addPosition(p);
// the trailing positions: buys, on their own accounts, no stop-loss yet (it starts behind the ask)
const trnd = rng(SEED + 2);
const tmid = Array.from({ length: INSTRUMENTS }, () => 100 + trnd() * 50);
for (let i = 0; i < INSTRUMENTS; i++) r.setQuote(TRAIL_BASE + i, tmid[i], tmid[i] * 1.0001);
for (let a = 0; a < 1000; a++) r.setBalance(ACCOUNTS + 1 + a, 1e9);
for (let k = 0; k < TRAILING; k++) {
  const i = k % INSTRUMENTS;
  r.addPosition({
    id: POSITIONS + 1 + k, accountId: ACCOUNTS + 1 + (k % 1000), instrumentId: TRAIL_BASE + i, side: 'buy', amount: 1,
    open: tmid[i], spread: 0, exchangeRate: 1, margin: 0, stopout: 50, tp: null, sl: null, trail: tmid[i] * (0.005 + trnd() * 0.02),
  });
}
r.takeTrailMoves(); // what their placing wrote
const pend = new PendingIndex();
for (const p of w.pending) pend.add(p);
const tk = ticks(SEED + 1, w.mid, w.spread, TICKS);
const lat = new Float64Array(TICKS);
let closes = 0, activations = 0, trailTicks = 0, trailWrites = 0, flushes = 0, maxFlush = 0;
const t0 = performance.now();
let nextFlush = t0 + FLUSH_MS;
for (let t = 0; t < TICKS; t++) {
  let inst = tk.inst[t], bid = tk.bid[t], ask = tk.ask[t];
  if (TRAILING > 0 && t % 2 === 1) {
    // a trailing instrument's tick: its price rises, every trailing stop on it moves
    const i = tk.inst[t];
    tmid[i] *= 1.00002;
    inst = TRAIL_BASE + i; bid = tmid[i]; ask = tmid[i] * 1.0001;
    trailTicks++;
  }
  const s = performance.now();
  const out = r.onTick(inst, bid, ask);
  const acts = pend.onTick(inst, bid, ask, t);
  lat[t] = performance.now() - s;
  // settle at once, as the close executor and the activator would (balance moves by the P/L)
  for (const c of out) { closes++; r.removePosition(c.positionId); }
  for (const a of acts) { activations++; pend.remove(a.pendingId); }
  if ((t & 1023) === 0 && performance.now() >= nextFlush) {
    // the throttled flush: each moved stop once (one statement in the core)
    const n = r.takeTrailMoves().length;
    trailWrites += n; flushes++; maxFlush = Math.max(maxFlush, n);
    nextFlush += FLUSH_MS;
  }
}
const elapsed = (performance.now() - t0) / 1000;
{ const n = r.takeTrailMoves().length; trailWrites += n; flushes++; maxFlush = Math.max(maxFlush, n); }
lat.sort();

// ---- reference: scan every open position on every tick
const n = world(SEED);
const open = new Map(n.positions.map((p) => [p.id, p]));
const waiting = new Map(n.pending.map((p) => [p.id, p]));
const bids = n.mid.slice(), asks = n.mid.map((m, i) => m + n.spread[i]);
const ntk = ticks(SEED + 1, n.mid, n.spread, NAIVE_TICKS);
const eq = new Float64Array(ACCOUNTS + 1);
let naiveCloses = 0, naiveActivations = 0;
const n0 = performance.now();
for (let t = 0; t < NAIVE_TICKS; t++) {
  const i = ntk.inst[t];
  bids[i] = ntk.bid[t]; asks[i] = ntk.ask[t];
  eq.fill(0);
  for (let a = 0; a < ACCOUNTS; a++) eq[a + 1] = n.balances[a];
  const hit: number[] = [];
  for (const p of open.values()) {
    const b = bids[p.instrumentId], k = asks[p.instrumentId];
    const cur = p.side === 'buy' ? k : b;
    eq[p.accountId] += (p.amount * (p.side === 'buy' ? cur - p.open : p.open - cur) - p.spread) / p.exchangeRate;
    if (autoCloseReason(p, b, k)) hit.push(p.id);
  }
  for (const p of open.values()) if (eq[p.accountId] <= 0) hit.push(p.id);
  for (const id of hit) if (open.delete(id)) naiveCloses++;
  for (const p of waiting.values()) if (p.instrumentId === i && reaches(p, bids[i], asks[i])) { waiting.delete(p.id); naiveActivations++; }
}
const naiveElapsed = (performance.now() - n0) / 1000;

const ticksPerS = TICKS / elapsed, naivePerS = NAIVE_TICKS / naiveElapsed;
console.log(JSON.stringify({
  bench: 'engine', positions: POSITIONS, pending_orders: PENDING, accounts: ACCOUNTS, instruments: INSTRUMENTS, ticks: TICKS, seed: SEED,
  ticks_per_s: Math.round(ticksPerS),
  p50_us: +(percentile(lat, 50) * 1000).toFixed(2),
  p99_us: +(percentile(lat, 99) * 1000).toFixed(2),
  closes,
  activations,
  naive_ticks: NAIVE_TICKS,
  naive_ticks_per_s: Math.round(naivePerS),
  naive_closes: naiveCloses, // the reference does the same work: it closes and activates too
  naive_activations: naiveActivations,
  ratio: +(ticksPerS / naivePerS).toFixed(1),
  trailing: TRAILING,
  trailing_ticks: trailTicks,
  trailing_stop_moves: r.trailMovesCount,
  trail_flushes: flushes,
  trail_writes: trailWrites,
  trail_writes_per_s: Math.round(trailWrites / elapsed),
  trail_max_rows_per_flush: maxFlush,
  target: { ticks_per_s: 200_000, ratio: 100, trail_rows_per_flush_max: TRAILING },
}));
