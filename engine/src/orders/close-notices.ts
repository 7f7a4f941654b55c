// A position the customer did not close themselves leaves a notification, so it is in their
// dropdown even when they were away (docs/specs.md#notifications). Written after the close
// committed: a failure here never undoes a close. The live page already toasts the order.closed
// event, hence toast: false. Notifications of the closes settled together (a batch of a flash
// crash) are written with one INSERT, then each published.
import type { Sql } from '../db.ts';
import { dec } from '../domain/index.ts';
import { closeReasonLabel, type NotificationData, type NotificationEvent, type NotificationOf } from '../contract/events.ts';
import { pendingEndLabel } from '../contract/pending.ts';
import type { OrderView, PendingView } from './view.ts';

/** Where a close notification leads. */
const CLOSE_URL = '/dashboard';

interface CloseNote { userId: number; title: string; description: string; data: NotificationOf<'position.closed'> | NotificationOf<'pending.cancelled'> }

/**
 * The notification of a close: its values (data) travel for the web to word and format in the
 * reader's language; the English text beside them shows units without trailing zeros and rates
 * with the instrument's digits.
 */
export function closeNotice(o: OrderView, reason: string, digits: number): Omit<CloseNote, 'userId'> {
  const data: NotificationOf<'position.closed'> = {
    kind: 'position.closed', id: o.id, reason, side: o.type, amount: dec(o.trade_amount).toFixed(),
    instrument: o.instrument.replace('_', '/'), rate: o.close_rate, digits, pnl: o.pro_loss ?? '0',
  };
  const title = `Position #${o.id} closed: ${closeReasonLabel(reason)}`;
  const description = `${o.type === 'buy' ? 'Buy' : 'Sell'} ${data.amount} ${data.instrument} at ${dec(o.close_rate ?? 0).toFixed(digits)}, P/L ${dec(data.pnl).toFixed(5)}`;
  return { title, description, data };
}

/** The notification of a pending order the engine or staff ended (margin missing at activation, expiry, a staff cancel). */
export function pendingNotice(p: PendingView, digits: number): Omit<CloseNote, 'userId'> {
  const data: NotificationOf<'pending.cancelled'> = {
    kind: 'pending.cancelled', id: p.id, reason: p.cancel_reason ?? p.status, side: p.type, orderType: p.order_type,
    amount: dec(p.trade_amount).toFixed(), instrument: p.instrument.replace('_', '/'), price: p.price, digits,
  };
  const what = `${p.type === 'buy' ? 'Buy' : 'Sell'} ${p.order_type === 'limit' ? 'Limit' : 'Stop'}`;
  const title = `Pending order #${p.id} ${p.status === 'expired' ? 'expired' : 'cancelled'}: ${pendingEndLabel(data.reason)}`;
  const description = `${what} ${data.amount} ${data.instrument} at ${dec(p.price).toFixed(digits)}`;
  return { title, description, data };
}

export class CloseNotices {
  private notes: CloseNote[] = [];
  /** close notifications being written (tests and benchmarks wait on them with idle) */
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private sql: Sql,
    /** the instrument's display digits (5 when unknown) */
    private digitsOf: (instrumentId: number) => number | undefined,
    /** the live `notification` event on the user's topic */
    private publish: (userId: number, n: NotificationEvent) => void,
  ) {}

  /** Queues the notification of a close; the closes of one turn are written together. */
  closed(o: OrderView, reason: string) {
    this.notes.push({ userId: o.user_id, ...closeNotice(o, reason, this.digitsOf(o.instrument_id) ?? 5) });
    if (this.notes.length === 1) setImmediate(() => void this.write());
  }

  /** Queues the notification of a pending order ended without the customer (written with the closes of the turn). */
  pendingEnded(p: PendingView) {
    this.notes.push({ userId: p.user_id, ...pendingNotice(p, this.digitsOf(p.instrument_id) ?? 5) });
    if (this.notes.length === 1) setImmediate(() => void this.write());
  }

  /** Resolves when every close notification asked for so far is written and published. */
  idle(): Promise<void> { return this.write(); }

  private write() {
    const notes = this.notes.splice(0);
    if (!notes.length) return this.inFlight;
    this.inFlight = this.inFlight.then(() => this.insert(notes));
    return this.inFlight;
  }

  private async insert(notes: CloseNote[]): Promise<void> {
    const sql = this.sql;
    try {
      const rows = await sql<{ id: bigint; order_id: string }[]>`
        INSERT INTO notifications (user_id, title, description, url, data)
        SELECT n.user_id, n.title, n.description, ${CLOSE_URL}, n.data::jsonb
          FROM unnest(${notes.map((n) => String(n.userId))}::bigint[], ${notes.map((n) => n.title)}::text[],
                      ${notes.map((n) => n.description)}::text[], ${notes.map((n) => JSON.stringify(n.data))}::text[])
               WITH ORDINALITY AS n (user_id, title, description, data, k)
         ORDER BY n.k
        RETURNING id, (data->>'kind') || ':' || (data->>'id') AS order_id`;
      const ids = new Map(rows.map((r) => [r.order_id, Number(r.id)]));
      for (const n of notes) {
        this.publish(n.userId, { id: ids.get(`${n.data.kind}:${n.data.id}`), title: n.title, description: n.description, url: CLOSE_URL, data: n.data as NotificationData, toast: false });
      }
    } catch (err) {
      // one bad row (say, a user gone) must not cost the others theirs: write them one by one
      if (notes.length > 1) { for (const n of notes) await this.insert([n]); return; }
      console.error('[core] notification', (err as Error).message);
    }
  }
}
