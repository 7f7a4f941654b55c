// The instrument list, reloaded from PostgreSQL when staff add, edit or delete one (the
// engine_cache notification, kind 'instrument') and every 30 s.
import type { Sql } from '../db.ts';
import { loadInstruments, type Book, type Instrument } from './book.ts';

export class InstrumentReloader {
  private pending?: ReturnType<typeof setTimeout>;

  constructor(
    private sql: Sql,
    private book: Book,
    /** the new list, and the ids of the instruments it no longer has (before the saved quotes are seeded) */
    private changed: (list: Instrument[], dropped: number[]) => void,
  ) {}

  async reload() {
    const { list, quotes } = await loadInstruments(this.sql);
    const before = this.book.byId;
    this.book.setInstruments(list);
    this.changed(list, [...before.keys()].filter((id) => !this.book.byId.has(id)));
    // the saved quotes are shown until a feed speaks, never traded on (Book.tradable)
    for (const q of quotes) this.book.seed(q);
  }

  /** A burst of edits (an import, a bulk toggle) is one reload; `done` after it. */
  schedule(done: () => void) {
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.reload().then(done, (e) => console.error('[core] instruments', (e as Error).message));
    }, 50);
  }

  stop() { clearTimeout(this.pending); }
}
