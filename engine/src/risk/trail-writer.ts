// Trailing stops to PostgreSQL and to the customers' pages, throttled (docs/specs.md#trailing-stop):
// the evaluator moves stops on every tick in memory (risk/trail.ts); every `intervalMs` (about a
// second) the stops moved since the last flush are written in ONE statement (engine_trail_stops:
// forward only, a history row each in order_level_moves) and published as one `order.trailed`
// event per user. At most one write per trailing position per flush, however fast the market.
//
// Crash and takeover: until a move is written, the tick before it bounds the id the partition's
// next owner replays from (safeTickId), so a replay moves the stop as the live ticks did.
import type { Sql } from '../db.ts';
import { idAfter } from '../bus/index.ts';
import type { CloseRequest, RiskEvaluator, TrailMove } from './evaluator.ts';
import type { TrailedEvent } from '../contract/events.ts';

export class TrailWriter {
  /** rows written and statements run (metrics, the bench) */
  writes = 0;
  statements = 0;
  /** the id of the tick before the oldest move not yet written; null: all written */
  private since: string | null = null;
  private running: Promise<number> | null = null;

  constructor(private sql: Sql, private risk: RiskEvaluator,
              private publish: (userId: number, e: TrailedEvent) => void) {}

  /** After a tick (`prevId`: the bus id before it): remember where unwritten moves start. */
  ticked(prevId: string | undefined) {
    if (this.risk.trailTicked) {
      this.risk.trailTicked = false;
      if (this.since === null && prevId !== undefined) this.since = prevId;
    }
  }

  /** The tick id a new owner may replay from, as far as the trailing stops are concerned. */
  bound(safe: string) {
    return this.since !== null && idAfter(safe, this.since) ? this.since : safe;
  }

  /** Write the moves since the last flush; resolves to the rows written. One flush at a time. */
  flush(): Promise<number> {
    if (this.running) return this.running.then(() => this.flush());
    this.running = this.write().finally(() => { this.running = null; });
    return this.running;
  }

  private async write() {
    const since = this.since;
    this.since = null;
    const moves = this.risk.takeTrailMoves();
    if (!moves.length) return 0;
    try {
      const rows = await this.save(moves);
      const byUser = new Map<number, TrailedEvent['moves']>();
      for (const r of rows) {
        const uid = Number(r.user_id);
        let list = byUser.get(uid);
        if (!list) byUser.set(uid, list = []);
        list.push({ id: Number(r.order_id), loss: r.loss });
      }
      for (const [uid, list] of byUser) this.publish(uid, { moves: list });
      return rows.length;
    } catch (e) {
      // nothing was written: the same stops go with the next flush
      for (const m of moves) this.risk.markTrailed(m.id);
      if (since !== null && (this.since === null || idAfter(this.since, since))) this.since = since;
      throw e;
    }
  }

  private async save(moves: { id: number; sl: number }[]) {
    this.statements++;
    const rows = await this.sql<{ order_id: bigint; user_id: bigint; loss: string }[]>`
      SELECT order_id, user_id, loss::text FROM engine_trail_stops(${moves.map((m) => String(m.id))}::bigint[],
                                                                   ${moves.map((m) => String(m.sl))}::numeric[])`;
    this.writes += rows.length;
    return rows;
  }

  /** Before a trailing stop's close: its stop-loss as trailed, so the close reaches its level (migration close-at-trigger-tick). */
  async beforeClose(reqs: CloseRequest[]) {
    const stops: TrailMove[] = [];
    for (const r of reqs) if (r.stop !== undefined) stops.push({ id: r.positionId, accountId: r.accountId, sl: r.stop });
    if (stops.length) await this.save(stops);
  }
}
