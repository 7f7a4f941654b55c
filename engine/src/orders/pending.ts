// Pending orders (docs/specs.md#pending-orders): place, modify, cancel (the customer's and the
// staff's), expire and activate. Each command that writes is one PostgreSQL transaction or
// statement that locks the balance row first, as orders/service.ts does, then the pending row,
// and changes it only while it is still pending: a fill, a cancel and an expiry race to one
// outcome. Activation (engine_activate_pendings) inserts the position through
// engine_place_order, the market order's margin checks under the same lock, and marks the
// pending row filled in the same statement; margin missing at that moment cancels the order
// with the refusal as its reason. No margin is reserved while an order is pending.
import type { Sql } from '../db.ts';
import { dec, fillValues, markRate, pendingPriceProblem, sessionEnd, type Category } from '../domain/index.ts';
import { refuse, type Result } from './results.ts';
import { checkPlace, noPrice, parseNumbers, parseOpenTime, type OrderDeps, type PlaceCtx, type PlaceInput } from './service.ts';
import { orderView, pendingView, type OrderRow, type OrderView, type PendingRow, type PendingView } from './view.ts';
import type { ModifyPendingInput, PendingExpiry, PlacePendingInput } from '../contract/pending.ts';
import type { PendingTick } from '../risk/pending.ts';

/** What the rest of the engine learns after a pending command commits. */
export interface PendingHooks {
  placed?(p: PendingView): void;
  modified?(p: PendingView): void;
  /** filled: `order` is the position it became (with its stop-out threshold and the balance as of its transaction) */
  filled?(p: PendingView, order: OrderView, stopout: number, balance: string): void;
  /** cancelled or expired */
  ended?(p: PendingView): void;
}

export interface PendingDeps { orders: OrderDeps; hooks?: PendingHooks; now?: () => Date }

type Answer = Result<{ pending: PendingView; margin: string; replayed?: boolean }>;

const notPending = () => refuse('already_closed', 'Order is no longer pending');

/** The refusal of a price not on its side of the quote by the instrument's minimum distance (domain/pending.ts). */
export function pendingPriceRefusal(side: 'buy' | 'sell', type: 'limit' | 'stop', price: string, bid: number | string, ask: number | string, minDistance: string | number) {
  const p = pendingPriceProblem(side, type, price, bid, ask, minDistance);
  return p ? refuse('bad_price', fillValues(p)) : null;
}

/** When an order of this expiry expires: null (good till cancelled), the session's end, or the time given. */
export function expiryTime(expiry: PendingExpiry, expiresAt: string | null | undefined, category: Category, now: Date): Result<{ at: Date | null }> {
  if (expiry === 'gtc') return { ok: true, at: null };
  if (expiry === 'day') return { ok: true, at: sessionEnd(category, now) };
  if (!expiresAt) return refuse('bad_expiry', 'Expiry time is required');
  const at = parseOpenTime(expiresAt);
  if (!at) return refuse('bad_expiry', 'Invalid expiry time');
  if (at.getTime() <= now.getTime()) return refuse('bad_expiry', 'Expiry time must be in the future');
  return { ok: true, at };
}

type Ctx = PlaceCtx & { min_distance: string };

/** The checks of a pending order against the live quote: its price's side and distance, then the market order's checks at its price. */
function checkPending(deps: PendingDeps, input: PlaceInput & { price: string; orderType: 'limit' | 'stop' }, ctx: Ctx) {
  const { book } = deps.orders;
  if (Number(ctx.balance_user_id) !== input.userId) return refuse('not_found', 'Balance not found');
  if (!ctx.is_active || ctx.deleted_at) return refuse('inactive', 'Account is inactive');
  if (!ctx.tradable) return refuse('not_tradable', 'This instrument is not tradable');
  if (!book.isOpen(ctx.category)) return refuse('market_closed', 'Market is closed');
  const q = book.tradable(ctx.name);
  if (!q) return refuse('no_price', noPrice(ctx.name));
  const bad = pendingPriceRefusal(input.type, input.orderType, input.price, q.bid, q.ask, ctx.min_distance);
  if (bad) return bad;
  return checkPlace(deps.orders, input, ctx, { rate: input.price, bid: q.bid, ask: q.ask, levels: true });
}

export async function placePending(deps: PendingDeps, raw: PlacePendingInput): Promise<Answer> {
  const parsed = parseNumbers(raw, ['amount', 'lots', 'price'], ['profit', 'loss']);
  if (!parsed.ok) return parsed;
  const input = parsed.input as PlacePendingInput & { price: string; orderType: 'limit' | 'stop' };
  const { sql } = deps.orders;
  const key = input.idempotencyKey ?? null;
  const [ctx] = await sql<(Ctx & { dup: string | null })[]>`
    SELECT c.*, i.pending_min_distance::text AS min_distance,
           (SELECT d.id::text FROM pending_orders d WHERE d.user_id = ${input.userId} AND d.idempotency_key = ${key}) AS dup
      FROM engine_place_context(${input.userId}, ${input.balanceId ?? null}, ${input.instrument}) c
      JOIN instruments i ON i.id = c.instrument_id`;
  if (!ctx) {
    const [i] = await sql`SELECT 1 FROM instruments WHERE name = ${input.instrument}`;
    return refuse('not_found', i ? 'Balance not found' : 'Instrument not found');
  }
  if (ctx.dup) return replayPending(sql, ctx.dup, ctx.name, input);
  const checked = checkPending(deps, input, ctx);
  if (!checked.ok) return checked;
  const exp = expiryTime(input.expiry ?? 'gtc', input.expiresAt, ctx.category, deps.now?.() ?? new Date());
  if (!exp.ok) return exp;
  try {
    const row = await sql.begin(async (tx) => {
      await tx`SELECT 1 FROM balances WHERE id = ${String(ctx.balance_id)} FOR UPDATE`;
      const [r] = await tx<PendingRow[]>`
        INSERT INTO pending_orders (user_id, balance_id, instrument_id, type, order_type, price, trade_amount, lots, profit, loss,
                                    expiry, expires_at, idempotency_key)
        VALUES (${input.userId}, ${String(ctx.balance_id)}, ${String(ctx.instrument_id)}, ${input.type}, ${input.orderType}, ${input.price},
                ${checked.amount}, ${checked.lots}, ${checked.tp}, ${checked.sl}, ${input.expiry ?? 'gtc'}, ${exp.at}, ${key})
        RETURNING *`;
      return r;
    });
    const pending = pendingView(row, ctx.name);
    deps.hooks?.placed?.(pending);
    return { ok: true, pending, margin: checked.margin, replayed: false };
  } catch (e) {
    // the same key raced in: answer with the order it placed
    if ((e as { code?: string }).code === '23505' && key) {
      const [d] = await sql<{ id: string }[]>`SELECT id::text FROM pending_orders WHERE user_id = ${input.userId} AND idempotency_key = ${key}`;
      if (d) return replayPending(sql, d.id, ctx.name, input);
    }
    throw e;
  }
}

/** An idempotency key already used: the same order answers the first one; a different one is refused. */
async function replayPending(sql: Sql, id: string, name: string, input: PlacePendingInput & { price: string }): Promise<Answer> {
  const [row] = await sql<PendingRow[]>`SELECT * FROM pending_orders WHERE id = ${id}`;
  const same = row.type === input.type && row.order_type === input.orderType && dec(row.price).eq(input.price) && name === input.instrument
    && (row.lots !== null ? input.lots !== undefined && dec(row.lots).eq(input.lots as string) : input.amount !== undefined && dec(row.trade_amount).eq(input.amount as string));
  if (!same) return refuse('idempotency_conflict', 'Idempotency key reused with a different order');
  return { ok: true, pending: pendingView(row, name), margin: '0', replayed: true };
}

export type ModifyPendingCommand = ModifyPendingInput & { pendingId: number };

/** The customer changes a pending order's price, lots, levels or expiry: checked as a new one, at the live quote. */
export async function modifyPending(deps: PendingDeps, raw: ModifyPendingCommand): Promise<Answer> {
  const parsed = parseNumbers(raw, ['amount', 'lots', 'price'], ['profit', 'loss']);
  if (!parsed.ok) return parsed;
  const input = parsed.input;
  const { sql } = deps.orders;
  const out = await sql.begin(async (tx) => {
    const [head] = await tx<{ balance_id: bigint; user_id: bigint }[]>`SELECT balance_id, user_id FROM pending_orders WHERE id = ${input.pendingId}`;
    if (!head || Number(head.user_id) !== input.userId) return refuse('not_found', 'Order not found');
    await tx`SELECT 1 FROM balances WHERE id = ${String(head.balance_id)} FOR UPDATE`;
    const [cur] = await tx<(PendingRow & { name: string })[]>`
      SELECT x.*, i.name FROM pending_orders x JOIN instruments i ON i.id = x.instrument_id WHERE x.id = ${input.pendingId} FOR UPDATE OF x`;
    if (cur.status !== 'pending') return notPending();
    const [ctx] = await tx<Ctx[]>`
      SELECT c.*, i.pending_min_distance::text AS min_distance
        FROM engine_place_context(${input.userId}, ${String(cur.balance_id)}, ${cur.name}) c JOIN instruments i ON i.id = c.instrument_id`;
    if (!ctx) return refuse('not_found', 'Order not found');
    const next = {
      userId: input.userId, balanceId: Number(cur.balance_id), type: cur.type, instrument: cur.name, orderType: cur.order_type,
      price: input.price ?? cur.price,
      amount: input.amount ?? (input.lots !== undefined ? undefined : cur.trade_amount),
      lots: input.lots ?? (input.amount !== undefined ? undefined : cur.lots ?? undefined),
      profit: input.profit === undefined ? cur.profit : input.profit,
      loss: input.loss === undefined ? cur.loss : input.loss,
    };
    const checked = checkPending(deps, next as PlaceInput & { price: string; orderType: 'limit' | 'stop' }, ctx);
    if (!checked.ok) return checked;
    let expiry = cur.expiry, expiresAt = cur.expires_at;
    if (input.expiry !== undefined) {
      const exp = expiryTime(input.expiry, input.expiresAt, ctx.category, deps.now?.() ?? new Date());
      if (!exp.ok) return exp;
      expiry = input.expiry; expiresAt = exp.at;
    }
    const [row] = await tx<PendingRow[]>`
      UPDATE pending_orders SET price = ${next.price}, trade_amount = ${checked.amount}, lots = ${checked.lots},
             profit = ${checked.tp}, loss = ${checked.sl}, expiry = ${expiry}, expires_at = ${expiresAt}, updated_at = now()
       WHERE id = ${input.pendingId} RETURNING *`;
    return { ok: true as const, pending: pendingView(row, cur.name), margin: checked.margin };
  });
  if (!out.ok) return out;
  deps.hooks?.modified?.(out.pending);
  return out;
}

/** Ends a pending order (engine_end_pending): the customer's cancel, staff's, an expiry, a refusal at activation. */
async function endPending(deps: PendingDeps, a: {
  id: number; userId?: number; status: 'cancelled' | 'expired'; reason: string; actorId?: number | null; audit?: boolean; ip?: string | null;
  tick?: PendingTick;
}): Promise<Result<{ pending: PendingView }>> {
  const { sql } = deps.orders;
  const [r] = await sql<({ st: string; name: string | null } & PendingRow)[]>`
    SELECT f.status AS st, i.name, (f.p).*
      FROM engine_end_pending(${a.id}, ${a.userId ?? null}, ${a.status}, ${a.reason}, ${a.actorId ?? null}, ${a.audit ?? false}, ${a.ip ?? null},
                              ${a.tick ? String(a.tick.bid) : null}, ${a.tick ? String(a.tick.ask) : null}, ${a.tick ? new Date(a.tick.ts) : null}) f
      LEFT JOIN instruments i ON i.id = (f.p).instrument_id`;
  if (r.st === 'not_found') return refuse('not_found', 'Order not found');
  if (r.st === 'done') return notPending();
  const pending = pendingView(r, r.name!);
  deps.hooks?.ended?.(pending);
  return { ok: true, pending };
}

export const cancelPending = (deps: PendingDeps, a: { pendingId: number; userId: number }) =>
  endPending(deps, { id: a.pendingId, userId: a.userId, status: 'cancelled', reason: 'customer', actorId: a.userId });

/** Staff cancel: audited (action pending.cancel). */
export const adminCancelPending = (deps: PendingDeps, a: { pendingId: number; actorId: number; ip?: string | null }) =>
  endPending(deps, { id: a.pendingId, status: 'cancelled', reason: 'staff', actorId: a.actorId, audit: true, ip: a.ip });

/** The engine expires an order at its expiry time. */
export const expirePending = (deps: PendingDeps, id: number) => endPending(deps, { id, status: 'expired', reason: 'expired' });

// ---------------------------------------------------------------- activation

/** A pending order its trigger tick reached; `replayed`: found replaying missed ticks (the position opens at the tick's time). */
export interface ActivateInput { pendingId: number; tick: PendingTick; replayed?: boolean; /** its balance: a batch keeps a balance's fills together */ accountId?: number }

/** filled, cancelled (margin or another refusal), expired, done (filled or ended elsewhere), retry (not settled: fire again later) */
export type ActivateOutcome = 'filled' | 'cancelled' | 'expired' | 'done' | 'retry';

type ActivateOut = { pending_id: bigint; status: string; balance: string | null; order_id: bigint | null };

/**
 * Fills pending orders at their trigger ticks, one statement for the batch
 * (engine_activate_pendings); answers an outcome per input, in order. Throws when the statement
 * fails (nothing changed): the caller retries one by one.
 */
export async function activatePendings(deps: PendingDeps, acts: ActivateInput[], attempt = 0): Promise<ActivateOutcome[]> {
  const { sql, book } = deps.orders;
  const out: ActivateOutcome[] = new Array(acts.length).fill('done');
  const rows = await sql<(PendingRow & { name: string })[]>`
    SELECT x.*, i.name FROM pending_orders x JOIN instruments i ON i.id = x.instrument_id WHERE x.id = ANY(${acts.map((a) => String(a.pendingId))}::bigint[])`;
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const live = acts.map((a, i) => ({ a, i, r: byId.get(a.pendingId) })).filter((x) => x.r && x.r.status === 'pending') as { a: ActivateInput; i: number; r: PendingRow & { name: string } }[];
  if (!live.length) return out;
  const ctxRows = await sql<(PlaceCtx & { k: string })[]>`
    SELECT a.k::text, c.*
      FROM unnest(${live.map((x) => String(x.r.user_id))}::bigint[], ${live.map((x) => String(x.r.balance_id))}::bigint[], ${live.map((x) => x.r.name)}::text[])
           WITH ORDINALITY AS a (u, b, n, k)
     CROSS JOIN LATERAL engine_place_context(a.u, a.b, a.n) c`;
  const ctxOf = new Map(ctxRows.map((c) => [Number(c.k) - 1, c]));
  const cols = { ids: [] as string[], rates: [] as string[], bids: [] as string[], asks: [] as string[], ats: [] as string[], stamps: [] as boolean[],
    kinds: [] as string[], spreads: [] as string[], xrs: [] as string[], margins: [] as string[], levs: [] as number[], names: [] as string[], fps: [] as string[] };
  const sent: { x: typeof live[number]; stopout: number }[] = [];
  const ends: Promise<unknown>[] = [];
  const prices = new Map<number, { bid: number; ask: number }>();
  live.forEach((x, j) => {
    const ctx = ctxOf.get(j);
    const { a, r } = x;
    const reason = (code: string, outcome: ActivateOutcome) => {
      out[x.i] = outcome;
      ends.push(endPending(deps, { id: a.pendingId, status: 'cancelled', reason: code, tick: a.tick }));
    };
    if (!ctx) return reason('invalid', 'cancelled');
    const fill = String(markRate(r.type, a.tick.bid, a.tick.ask));
    const input: PlaceInput = {
      userId: Number(r.user_id), balanceId: Number(r.balance_id), type: r.type, instrument: r.name,
      amount: r.trade_amount, lots: r.lots ?? undefined, profit: r.profit, loss: r.loss,
    };
    const checked = checkPlace(deps.orders, input, ctx, { rate: fill, bid: a.tick.bid, ask: a.tick.ask, levels: false });
    if (!checked.ok) {
      if (checked.code === 'no_rate' || checked.code === 'no_price') { out[x.i] = 'retry'; return; }
      return reason(checked.code, 'cancelled');
    }
    if (!prices.has(Number(r.instrument_id))) prices.set(Number(r.instrument_id), { bid: a.tick.bid, ask: a.tick.ask });
    for (const id of deps.orders.instrumentsOf?.(Number(r.balance_id)) ?? []) {
      if (prices.has(id)) continue;
      const inst = book.byId.get(id);
      const q = inst && book.tradable(inst.name);
      if (q) prices.set(id, { bid: q.bid, ask: q.ask });
    }
    cols.ids.push(String(a.pendingId)); cols.rates.push(checked.openRate); cols.bids.push(String(a.tick.bid)); cols.asks.push(String(a.tick.ask));
    cols.ats.push(new Date(a.tick.ts).toISOString()); cols.stamps.push(!!a.replayed); cols.kinds.push(ctx.category); cols.spreads.push(checked.spread);
    cols.xrs.push(checked.exchangeRate); cols.margins.push(checked.margin); cols.levs.push(checked.leverage); cols.names.push(r.name); cols.fps.push(ctx.fp);
    sent.push({ x, stopout: checked.stopout });
  });
  if (sent.length) {
    const pids = [...prices.keys()];
    const res = await sql<ActivateOut[]>`
      SELECT f.pending_id, f.status, f.balance, (f.o).id AS order_id
        FROM engine_activate_pendings(${cols.ids}::bigint[], ${cols.rates}::numeric[], ${cols.bids}::numeric[], ${cols.asks}::numeric[],
             ${cols.ats}::timestamptz[], ${cols.stamps.map(Number)}::int[]::boolean[], ${cols.kinds}::instrument_category[], ${cols.spreads}::numeric[],
             ${cols.xrs}::numeric[], ${cols.margins}::numeric[], ${cols.levs}::int[], ${cols.names}::text[], ${cols.fps}::text[],
             ${pids.map(String)}::bigint[], ${pids.map((id) => String(prices.get(id)!.bid))}::numeric[],
             ${pids.map((id) => String(prices.get(id)!.ask))}::numeric[]) f`;
    // the rows as committed (exact numerics), read back by id
    const orderIds = res.filter((r) => r.status === 'ok').map((r) => String(r.order_id));
    const endedIds = res.filter((r) => r.status !== 'stale' && r.status !== 'done' && r.status !== 'not_found').map((r) => String(r.pending_id));
    const [orders, pendings] = await Promise.all([
      orderIds.length ? sql<OrderRow[]>`SELECT * FROM orders WHERE id = ANY(${orderIds}::bigint[])` : [],
      endedIds.length ? sql<PendingRow[]>`SELECT * FROM pending_orders WHERE id = ANY(${endedIds}::bigint[])` : [],
    ]);
    const orderOf = new Map(orders.map((o) => [Number(o.id), o]));
    const pendingOf = new Map(pendings.map((p) => [Number(p.id), p]));
    const stale: ActivateInput[] = [], staleAt: number[] = [];
    res.forEach((row, k) => {
      const { x, stopout } = sent[k];
      if (Number(row.pending_id) !== x.a.pendingId) throw new Error('engine_activate_pendings answered out of order');
      const pr = pendingOf.get(x.a.pendingId);
      const p = pr ? pendingView(pr, x.r.name) : null;
      switch (row.status) {
        case 'ok':
          out[x.i] = 'filled';
          deps.hooks?.filled?.(p!, orderView(orderOf.get(Number(row.order_id))!, x.r.name), stopout, String(row.balance));
          break;
        case 'insufficient_balance': case 'insufficient_free_margin':
          out[x.i] = 'cancelled'; deps.hooks?.ended?.(p!); break;
        case 'expired':
          out[x.i] = 'expired'; deps.hooks?.ended?.(p!); break;
        case 'stale':
          stale.push(x.a); staleAt.push(x.i); break;
        default:
          out[x.i] = 'done';
      }
    });
    if (stale.length) {
      // the context changed between its read and the lock: read it again
      const again: ActivateOutcome[] = attempt < 2 ? await activatePendings(deps, stale, attempt + 1) : stale.map(() => 'retry');
      staleAt.forEach((i, k) => { out[i] = again[k]; });
    }
  }
  await Promise.all(ends);
  return out;
}

/**
 * Settles the activations the pending index asks for: batches of up to `batchSize` (one
 * statement each), `concurrency` at once; a batch whose statement failed goes again one by one,
 * and an activation that still fails is answered 'retry' (its order fires again on a later tick).
 */
export class PendingActivator {
  private queue: ActivateInput[] = [];
  private running = 0;
  private waiters: (() => void)[] = [];
  batches = 0;
  failures = 0;

  constructor(
    private run: (acts: ActivateInput[]) => Promise<ActivateOutcome[]>,
    private done: (a: ActivateInput, outcome: ActivateOutcome) => void,
    private opts: { batchSize?: number; concurrency?: number } = {},
  ) {}

  submit(acts: ActivateInput[]) {
    if (!acts.length) return;
    this.queue.push(...acts);
    this.pump();
  }

  get pending() { return this.queue.length + this.running; }

  idle(): Promise<void> {
    if (!this.pending) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  private pump() {
    const size = Math.max(1, this.opts.batchSize ?? 1000), conc = Math.max(1, this.opts.concurrency ?? 2);
    // more than a batch waiting (one tick reaching thousands): grouped by balance, in the order
    // asked within each, so concurrent batches seldom wait on each other's balance locks (as
    // the close executor does)
    if (this.queue.length > size && this.running < conc) {
      this.queue = this.queue.map((a, i) => ({ a, i }))
        .sort((x, y) => (x.a.accountId ?? 0) - (y.a.accountId ?? 0) || x.i - y.i).map((x) => x.a);
    }
    while (this.running < conc && this.queue.length) {
      const batch = this.queue.splice(0, size);
      this.running++;
      void this.exec(batch).finally(() => {
        this.running--;
        this.pump();
        if (!this.pending) for (const w of this.waiters.splice(0)) w();
      });
    }
  }

  private async exec(batch: ActivateInput[]) {
    this.batches++;
    try {
      const out = await this.run(batch);
      batch.forEach((a, i) => this.done(a, out[i]));
    } catch (e) {
      this.failures++;
      console.error('[core] pending activation', (e as Error).message);
      for (const a of batch) {
        let outcome: ActivateOutcome = 'retry';
        if (batch.length > 1) { try { outcome = (await this.run([a]))[0]; } catch { /* retried on a later tick */ } }
        this.done(a, outcome);
      }
    }
  }
}

/** A pending order as the index holds it, from the engine's answer or a row. */
export function pendingInput(p: Pick<PendingView, 'id' | 'balance_id' | 'instrument_id' | 'type' | 'order_type' | 'price' | 'expires_at'>) {
  return {
    id: p.id, accountId: p.balance_id, instrumentId: p.instrument_id, side: p.type, orderType: p.order_type,
    price: +p.price, expiresMs: p.expires_at === null ? null : new Date(p.expires_at).getTime(),
  };
}

/** The live pending orders of some partitions (of `count`; all when count <= 1), oldest first, with when each was placed. */
export async function loadPending(sql: Sql, count: number, parts: number[]) {
  const rows = await sql<{ id: bigint; balance_id: bigint; instrument_id: bigint; type: 'buy' | 'sell'; order_type: 'limit' | 'stop'; price: string; expires_at: Date | null; created_ms: string }[]>`
    SELECT id, balance_id, instrument_id, type, order_type, price, expires_at, floor(extract(epoch FROM created_at) * 1000)::bigint::text AS created_ms
      FROM pending_orders
     WHERE status = 'pending' AND (${count}::int <= 1 OR balance_id % ${count}::int = ANY(${parts}::int[]))
     ORDER BY created_at, id`;
  return rows.map((r) => ({
    createdMs: Number(r.created_ms),
    input: pendingInput({ id: Number(r.id), balance_id: Number(r.balance_id), instrument_id: Number(r.instrument_id), type: r.type,
      order_type: r.order_type, price: r.price, expires_at: r.expires_at?.toISOString() ?? null }),
  }));
}
