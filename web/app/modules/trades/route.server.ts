// The loader and action of the three trade lists (routes/_staff.admin.trades.{all,open,closed}.tsx):
// the role from the permission map (1, 2) on every read and post, the URL's list state and
// filters parsed before any SQL (a bad filter is a 400 with its message on the page, the list
// empty), and the row actions answered as one Reply.
import { float } from '@broker/engine/domain';
import type { Sql } from '~/shared/sql.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { parseListQuery } from '~/components/ui/list-params.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { engine } from '~/shared/engine.server.ts';
import { replyOutcome } from '~/shared/result.server.ts';
import { FILTER_KEYS, PENDING_FILTERS, PENDING_FILTER_KEYS, TRADE_FILTERS, TRADE_SORTABLE, parsePendingForm, parseTradeForm, type TradeType } from './schemas.ts';
import { listPendingOrders, staffCancelPending, type PendingFilters } from './pending.server.ts';
import { instrumentChoices, listTrades, runTradeAction, type TradeFilters, type TradeRow } from './trades.server.ts';

/**
 * The floating P/L of the page's open trades at the engine's live quotes (display only, the
 * domain's float formula as the dashboard shows it); null without a live quote.
 */
async function withFloating(rows: TradeRow[]) {
  const open = rows.filter((r) => !r.closeTime);
  const live = open.length ? await engine().quotes() : null;
  const quotes = new Map(live?.ok ? live.quotes.filter((q) => !q.stale && q.bids && q.asks).map((q) => [q.name, q]) : []);
  return rows.map((r) => {
    const q = r.closeTime ? undefined : quotes.get(r.symbol);
    const floatingPnl = q ? float.positionPnl(r.type, +r.amount, +r.openRate, +r.spread, +r.exchangeRate, q.bids!, q.asks!) : null;
    return { ...r, floatingPnl };
  });
}

export async function tradesLoader(sql: Sql, s: CurrentSession, type: TradeType, params: URLSearchParams) {
  {
    const filters = Object.fromEntries(FILTER_KEYS.map((k) => [k, (params.get(k) ?? '').slice(0, 300)])) as unknown as TradeFilters;
    const parsed = parseListQuery(params, { sortable: TRADE_SORTABLE, dates: true, extra: TRADE_FILTERS });
    const instruments = await instrumentChoices(sql);
    if (!parsed.ok) {
      return { status: 400, body: { type, rows: [] as Awaited<ReturnType<typeof withFloating>>, total: 0, estimated: false, filters, instruments, filterError: { field: parsed.field, message: parsed.message } } };
    }
    const q = parsed.query;
    const list = await listTrades(sql, type, q);
    return { status: 200, body: {
      type, rows: await withFloating(list.rows), total: list.total, estimated: list.estimated, instruments, filterError: null as { field: string; message: string } | null,
      filters: { user: q.user, instrument: q.instrument, side: q.side, dateStart: q.dateStart, dateEnd: q.dateEnd },
    } };
  }
}
/** what a trade list's loader answers (the page's useLoaderData) */
export type TradesLoader = () => Promise<Awaited<ReturnType<typeof tradesLoader>>['body']>;

/** POST: edit, close or delete one trade (intent), through the engine's staff commands. */
export async function tradesAction(sql: Sql, s: CurrentSession, form: FormData, ip: string | null, locale: string) {
  const { intent, submission } = parseTradeForm(form, locale);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  const r = await runTradeAction(sql, { id: s.user.id, ip }, submission.value);
  return replyOutcome(submission, r, intent);
}

/** The staff list of pending orders (/admin/trades/pending): its filters parsed before any SQL, like the trade lists'. */
export async function pendingLoader(sql: Sql, params: URLSearchParams) {
  const filters = Object.fromEntries(PENDING_FILTER_KEYS.map((k) => [k, (params.get(k) ?? (k === 'status' ? 'pending' : '')).slice(0, 300)])) as unknown as PendingFilters;
  const parsed = parseListQuery(params, { sortable: TRADE_SORTABLE, extra: PENDING_FILTERS });
  const instruments = await instrumentChoices(sql);
  if (!parsed.ok) {
    return { status: 400, body: { rows: [] as Awaited<ReturnType<typeof listPendingOrders>>['rows'], total: 0, estimated: false, filters, instruments, filterError: { field: parsed.field, message: parsed.message } } };
  }
  const q = parsed.query;
  const f: PendingFilters = { status: q.status, user: q.user, instrument: q.instrument, side: q.side };
  const list = await listPendingOrders(sql, f, { limit: q.limit, offset: q.offset });
  return { status: 200, body: { rows: list.rows, total: list.total, estimated: list.estimated, filters: f, instruments, filterError: null as { field: string; message: string } | null } };
}
export type PendingLoader = () => Promise<Awaited<ReturnType<typeof pendingLoader>>['body']>;

/** POST: staff cancel of one pending order (audited by the engine). */
export async function pendingAction(s: CurrentSession, form: FormData, ip: string | null) {
  const { intent, submission } = parsePendingForm(form);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  return replyOutcome(submission, await staffCancelPending({ id: s.user.id, ip }, submission.value.id), intent);
}
