// Candles 1m / 1h / 1D built from ticks (mid price) and persisted: the open buckets are
// upserted every few seconds, so a restart loses at most that much of a bar.
import type { Sql } from '../db.ts';

export type Interval = '1m' | '1h' | '1D';
export const INTERVALS: Interval[] = ['1m', '1h', '1D'];
const MS: Record<Interval, number> = { '1m': 60_000, '1h': 3_600_000, '1D': 86_400_000 };

export interface Candle { ts: number; open: number; high: number; low: number; close: number; ticks: number }

export const bucket = (ts: number, iv: Interval) => Math.floor(ts / MS[iv]) * MS[iv];

type Bar = { instrumentId: number; iv: Interval; c: Candle };

export class CandleBuilder {
  private open = new Map<string, Bar>();
  private dirty = new Set<string>();
  private finished: Bar[] = [];

  add(instrumentId: number, price: number, ts: number) {
    for (const iv of INTERVALS) {
      const key = `${instrumentId}:${iv}`;
      const b = bucket(ts, iv);
      const cur = this.open.get(key);
      if (cur && cur.c.ts === b) {
        const c = cur.c;
        if (price > c.high) c.high = price;
        if (price < c.low) c.low = price;
        c.close = price;
        c.ticks++;
      } else {
        if (cur && cur.c.ts > b) continue; // a late tick for a finished bar: ignore
        if (cur && this.dirty.has(key)) this.finished.push(cur); // written at the next flush
        this.open.set(key, { instrumentId, iv, c: { ts: b, open: price, high: price, low: price, close: price, ticks: 1 } });
      }
      this.dirty.add(key);
    }
  }

  /** Upsert every bar touched since the last flush. */
  async flush(sql: Sql) {
    const rows: { instrument_id: number; interval: Interval; ts: Date; open: number; high: number; low: number; close: number; ticks: number }[] = [];
    const push = (x: { instrumentId: number; iv: Interval; c: Candle }) =>
      rows.push({ instrument_id: x.instrumentId, interval: x.iv, ts: new Date(x.c.ts), open: x.c.open, high: x.c.high, low: x.c.low, close: x.c.close, ticks: x.c.ticks });
    for (const x of this.finished) push(x);
    for (const key of this.dirty) push(this.open.get(key)!);
    this.finished = [];
    this.dirty.clear();
    if (!rows.length) return 0;
    for (let i = 0; i < rows.length; i += 1000) {
      await sql`
        INSERT INTO candles ${sql(rows.slice(i, i + 1000))}
        ON CONFLICT (instrument_id, interval, ts) DO UPDATE SET
          high = greatest(candles.high, excluded.high), low = least(candles.low, excluded.low),
          close = excluded.close, ticks = excluded.ticks`;
    }
    return rows.length;
  }
}

export async function readCandles(sql: Sql, instrumentId: number, iv: Interval, limit = 500): Promise<Candle[]> {
  const rows = await sql<{ ts: Date; open: string; high: string; low: string; close: string; ticks: number }[]>`
    SELECT ts, open, high, low, close, ticks FROM candles
    WHERE instrument_id = ${instrumentId} AND interval = ${iv}
    ORDER BY ts DESC LIMIT ${limit}`;
  return rows.reverse().map((r) => ({ ts: r.ts.getTime(), open: +r.open, high: +r.high, low: +r.low, close: +r.close, ticks: r.ticks }));
}
