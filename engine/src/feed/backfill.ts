// On first start, give every instrument a year of daily candles and two days of 1-minute (and
// 1-hour) candles, walking backwards from its current price, so charts are never empty.
import type { Sql } from '../db.ts';
import type { Instrument } from '../book/book.ts';
import { isMarketOpen } from '../domain/index.ts';
import { PROFILE, gaussian } from './simulator.ts';
import { rng, hashSeed } from './rng.ts';

const DAY = 86_400_000, MIN = 60_000, HOUR = 3_600_000;

interface Row { instrument_id: number; interval: '1m' | '1h' | '1D'; ts: Date; open: number; high: number; low: number; close: number; ticks: number }

/** Bars ending at `price` now, going back `count` steps of `step` ms, skipping closed markets. */
function walkBack(inst: Instrument, price: number, now: number, step: number, count: number, seed: number, iv: Row['interval']): Row[] {
  const next = rng(hashSeed(seed, inst.name + iv));
  const sigma = PROFILE[inst.category].vol * Math.sqrt(step / (365 * DAY));
  const rows: Row[] = [];
  let close = price;
  let ts = Math.floor(now / step) * step;
  const f = 10 ** Math.max(inst.digits, 2);
  const r = (x: number) => Math.round(x * f) / f;
  for (let i = 0; i < count; i++, ts -= step) {
    if (!isMarketOpen(inst.category, new Date(ts + (step === DAY ? 15 * HOUR : 0)))) continue;
    const open = close / Math.exp(sigma * gaussian(next));
    const high = Math.max(open, close) * (1 + Math.abs(sigma * gaussian(next)) * 0.5);
    const low = Math.min(open, close) / (1 + Math.abs(sigma * gaussian(next)) * 0.5);
    rows.push({ instrument_id: inst.id, interval: iv, ts: new Date(ts), open: r(open), high: r(high), low: r(low), close: r(close), ticks: 0 });
    close = open;
  }
  // rounding can put open/close a hair outside high/low: keep the table's CHECK true
  for (const x of rows) { x.high = Math.max(x.high, x.open, x.close); x.low = Math.min(x.low, x.open, x.close); }
  return rows;
}

export async function backfill(sql: Sql, instruments: Instrument[], prices: Map<string, number>, opts: { seed?: number; now?: number } = {}) {
  const now = opts.now ?? Date.now();
  const seed = opts.seed ?? 1;
  const have = new Set((await sql<{ instrument_id: bigint }[]>`SELECT DISTINCT instrument_id FROM candles WHERE interval = '1D'`).map((r) => Number(r.instrument_id)));
  let written = 0;
  for (const inst of instruments) {
    if (have.has(inst.id)) continue;
    const price = prices.get(inst.name);
    if (!price) continue;
    const rows = [
      ...walkBack(inst, price, now, DAY, 366, seed, '1D'),
      ...walkBack(inst, price, now, HOUR, 48, seed, '1h'),
      ...walkBack(inst, price, now, MIN, 2 * 24 * 60, seed, '1m'),
    ];
    for (let i = 0; i < rows.length; i += 2000) {
      await sql`INSERT INTO candles ${sql(rows.slice(i, i + 2000))} ON CONFLICT DO NOTHING`;
    }
    written += rows.length;
  }
  return written;
}
