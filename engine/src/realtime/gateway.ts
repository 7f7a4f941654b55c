// ENGINE_ROLE=gateway: a process that serves only /v1/stream (and health, metrics), fed from the
// bus, so browsers scale by adding gateways behind a load balancer, independent of the cores.
//   prices     the feed's ticks (the `ticks` stream every core reads too), through a Book of its
//              own (the instrument list from PostgreSQL, reloaded on staff edits) into the Hub's
//              coalescing; a tick is not taken from a core, so N cores never mean N copies
//   user:<id>, track:<id>, heartbeat
//              the `events` stream the cores (and feeds, and web through a core's POST /v1/events)
//              already publish to; the Hub subscribes to it, as it does in a core
// Tickets, the session-still-live check and presence are the realtime routes' (http/realtime.ts),
// the same code a core runs.
import type { Sql } from '../db.ts';
import type { Bus } from '../bus/index.ts';
import { Book, loadInstruments, type Tick } from '../book/book.ts';
import { TICKS } from '../bus/streams.ts';
import { Hub } from './hub.ts';

export class Gateway {
  readonly book = new Book();
  readonly hub: Hub;
  private stops: (() => void)[] = [];
  private timers: ReturnType<typeof setInterval>[] = [];
  private cacheListen?: { unlisten: () => Promise<void> };
  private reload?: ReturnType<typeof setTimeout>;

  constructor(private opts: { sql: Sql; bus: Bus }) {
    this.hub = new Hub(opts.bus);
  }

  get ticks() { return this.book.ticks; }

  async start() {
    const { sql, bus } = this.opts;
    await this.reloadInstruments();
    this.stops.push(bus.subscribe<Tick>(TICKS, (m) => this.ingest(m.data)));
    // instruments added, renamed or deleted by staff (migration engine-cache-notify)
    this.cacheListen = await sql.listen('engine_cache', (payload) => {
      if (!payload.includes('"instrument"') || this.reload) return;
      this.reload = setTimeout(() => {
        this.reload = undefined;
        this.reloadInstruments().catch((e) => console.error('[gateway] instruments', e.message));
      }, 50);
    });
    this.timers.push(setInterval(() => void this.reloadInstruments().catch(() => {}), 30_000));
  }

  ingest(t: Tick) {
    const q = this.book.apply(t);
    if (q) this.hub.onQuote(q);
  }

  async reloadInstruments() {
    const { list } = await loadInstruments(this.opts.sql);
    this.book.setInstruments(list);
  }

  async stop() {
    for (const s of this.stops) s();
    for (const t of this.timers) clearInterval(t);
    if (this.reload) clearTimeout(this.reload);
    await this.cacheListen?.unlisten().catch(() => {});
    this.hub.close();
  }
}
