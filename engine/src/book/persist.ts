// The book's state saved to PostgreSQL every few seconds: the candles, and the last quote of each
// instrument that moved (shown after a restart, marked stale, never traded on:
// docs/architecture.md "Prices and freshness").
import type { Sql } from '../db.ts';
import type { Book } from './book.ts';
import type { CandleBuilder } from './candles.ts';

export class BookWriter {
  private dirtyQuotes = new Set<string>();

  constructor(private sql: Sql, private book: Book, private candles: CandleBuilder) {}

  /** An instrument's quote moved: saved on the next flush. */
  moved(symbol: string) { this.dirtyQuotes.add(symbol); }

  /** Persist candles and the last quote of each instrument that moved. */
  async flush() {
    const sql = this.sql;
    await this.candles.flush(sql);
    const names = [...this.dirtyQuotes];
    this.dirtyQuotes.clear();
    const rows = names.map((n) => this.book.quote(n)!).filter(Boolean).map((q) => ({ name: q.name, bids: q.bid, asks: q.ask }));
    if (rows.length) {
      await sql`
        UPDATE instruments i SET bids = v.bids::numeric, asks = v.asks::numeric
          FROM (VALUES ${sql(rows.map((r) => [r.name, String(r.bids), String(r.asks)]))}) AS v(name, bids, asks)
         WHERE i.name = v.name`;
    }
  }
}
