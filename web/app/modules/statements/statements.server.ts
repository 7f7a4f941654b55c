// Statements of closed trades (docs/specs.md#client-pages): the active wallet's closed
// orders in a date range, 15 a page, and the same rows as a streamed CSV of any size.
// dateStart / dateEnd (YYYY-MM-DD, UTC days, both inclusive) come parsed by the list schema
// (listQuery): real days within 1970..2100, the end not before the start.
import type { Sql } from '~/shared/db.server.ts';
import { plainDecimal } from '~/components/ui/format.ts';
import type { DateRange } from '~/components/ui/list-params.ts';

export type { DateRange };
export const STATEMENT_PAGE_SIZE = 15;

function where(sql: Sql, balanceId: number, r: DateRange) {
  return sql`o.balance_id = ${balanceId} AND o.close_time IS NOT NULL AND o.deleted_at IS NULL
    ${r.dateStart ? sql`AND o.close_time >= ${r.dateStart}::date` : sql``}
    ${r.dateEnd ? sql`AND o.close_time < ${r.dateEnd}::date + 1` : sql``}`;
}

export interface StatementRow {
  id: number; createdAt: string; closeTime: string; instrument: string; type: 'buy' | 'sell'; amount: string;
  openRate: string; closeRate: string; proLoss: string;
  /** the instrument's price digits, for showing its rates */
  digits: number;
  /** a partial close: the position it was cut from (docs/specs.md#partial-close) */
  positionId: number | null;
}

export async function listStatement(sql: Sql, balanceId: number, r: DateRange, page: number) {
  const offset = (Math.max(1, page) - 1) * STATEMENT_PAGE_SIZE;
  const [rows, [count]] = await Promise.all([
    sql`SELECT o.id, o.created_at, o.close_time, i.base || '/' || i.quote AS instrument, o.type, o.trade_amount::text AS amount,
               o.open_rate::text AS open_rate, o.close_rate::text AS close_rate, o.pro_loss::text AS pro_loss, i.digits, o.position_id
          FROM orders o JOIN instruments i ON i.id = o.instrument_id
         WHERE ${where(sql, balanceId, r)}
         ORDER BY o.close_time DESC, o.id DESC LIMIT ${STATEMENT_PAGE_SIZE} OFFSET ${offset}`,
    sql`SELECT count(*)::int AS n FROM orders o WHERE ${where(sql, balanceId, r)}`,
  ]);
  return {
    total: count.n as number,
    rows: rows.map((o): StatementRow => ({
      id: Number(o.id), createdAt: (o.created_at as Date).toISOString(), closeTime: (o.close_time as Date).toISOString(),
      instrument: o.instrument, type: o.type, amount: o.amount, openRate: o.open_rate, closeRate: o.close_rate, proLoss: o.pro_loss, digits: Number(o.digits),
      positionId: o.position_id === null ? null : Number(o.position_id),
    })),
  };
}

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break; text that a spreadsheet would run as a formula is prefixed with '. */
export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = v instanceof Date ? v.toISOString() : String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvLine = (fields: unknown[]) => fields.map(csvField).join(',') + '\r\n';

/**
 * The CSV is for machines, whatever the page's language: times in ISO 8601 UTC, numbers as plain
 * decimals with a point and no grouping (the exact stored value, trailing zeros dropped). The
 * header says so, since a spreadsheet user would otherwise expect the page's formats.
 */
export const STATEMENT_COLUMNS = ['Ticket', 'Open Time (ISO 8601 UTC)', 'Close Time (ISO 8601 UTC)', 'Type', 'Instrument', 'Units', 'Open Rate', 'Close Rate', 'Profit/Loss', 'Status', 'Part of Position', 'Wallet', 'Currency'] as const;

/** The wallet a statement is of: every line names it, so a file read alone says whose money and in what. */
export interface StatementWallet { id: number; mode: 'demo' | 'real'; currency: string }

/** The wallet as the wallet switch names it (Real / Demo), in the CSV's one language. */
export const walletName = (w: Pick<StatementWallet, 'mode'>) => (w.mode === 'demo' ? 'Demo' : 'Real');

/** One statement row in the CSV's machine formats. */
export function statementCsvRow(o: Record<string, unknown>, w: StatementWallet): unknown[] {
  const iso = (d: unknown) => (d instanceof Date ? d.toISOString() : d);
  const num = (v: unknown) => plainDecimal(v as string | null);
  return [o.id, iso(o.created_at), iso(o.close_time), o.type, o.instrument, num(o.amount), num(o.open_rate), num(o.close_rate), num(o.pro_loss), 'CLOSED',
    o.position_id ?? '', walletName(w), w.currency.trim()];
}

/** The download's file name: the wallet, its currency and the range. */
export const statementFileName = (w: StatementWallet, r: DateRange) =>
  `statement-${walletName(w).toLowerCase()}-${w.currency.trim()}-${r.dateStart || 'all'}-${r.dateEnd || 'now'}.csv`;

/**
 * The statement as CSV, read with a cursor and written as it is read: memory stays flat for
 * any number of rows, and the client's back-pressure pauses the query.
 */
export function statementCsv(sql: Sql, wallet: StatementWallet, r: DateRange, header: readonly string[] = STATEMENT_COLUMNS): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let iterator: AsyncIterator<Record<string, unknown>[]> | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(enc.encode(csvLine([...header])));
      iterator = sql`
        SELECT o.id, o.created_at, o.close_time, o.type, i.base || '/' || i.quote AS instrument, o.trade_amount::text AS amount,
               o.open_rate::text AS open_rate, o.close_rate::text AS close_rate, o.pro_loss::text AS pro_loss, o.position_id::text AS position_id
          FROM orders o JOIN instruments i ON i.id = o.instrument_id
         WHERE ${where(sql, wallet.id, r)}
         ORDER BY o.close_time DESC, o.id DESC`.cursor(1000)[Symbol.asyncIterator]();
    },
    async pull(controller) {
      try {
        const next = await iterator!.next();
        if (next.done) return controller.close();
        let chunk = '';
        for (const o of next.value) {
          chunk += csvLine(statementCsvRow(o, wallet));
        }
        controller.enqueue(enc.encode(chunk));
      } catch (e) {
        controller.error(e);
      }
    },
    async cancel() {
      await iterator?.return?.();
    },
  }, { highWaterMark: 1 });
}
