// The realtime contract: every event the engine's stream (GET /v1/stream) carries to browsers,
// with its payload; the values of every notification (written by the engine and by web, read by
// web's bell and pages); and how a close reason reads. The engine publishes only what is named
// here (Core.publish, POST /v1/events) and web listens for exactly these names, so neither side
// spells an event by hand (docs/specs.md#realtime-tickets, #notifications).
// Pure TypeScript: web runs it under Node. The only imports are types.
import type { OrderView, PendingView } from '../orders/view.ts';
import type { CloseReason } from '../domain/triggers.ts';

export type { CloseReason };

// ---------------------------------------------------------------- close reasons

/**
 * How a close reason reads: the engine's English notification text, and web's translation keys
 * (seeds/translations holds each of them in every shipped language).
 */
export const CLOSE_REASON_LABELS: Readonly<Record<CloseReason, string>> = {
  manual: 'Closed by you', tp: 'Take profit', sl: 'Stop loss', stop_out: 'Stop out', zero_equity: 'Zero equity', admin: 'Closed by the broker',
};

/** The label of a stored reason; a reason this list does not know reads as itself. */
export const closeReasonLabel = (reason: string): string => (CLOSE_REASON_LABELS as Record<string, string>)[reason] ?? reason;

// ---------------------------------------------------------------- notifications

/** The values a notification carries (notifications.data) for the web to word and format in the reader's language. */
export type NotificationData =
  | { kind: 'position.closed'; id: number; reason: string; side: 'buy' | 'sell'; amount: string; instrument: string; rate: string | null; digits: number; pnl: string }
  // a pending order the engine cancelled (margin missing at activation, expiry, ...): reason as pending_orders.cancel_reason
  | { kind: 'pending.cancelled'; id: number; reason: string; side: 'buy' | 'sell'; orderType: 'limit' | 'stop'; amount: string; instrument: string; price: string; digits: number }
  | { kind: 'money.decided'; subject: 'deposit' | 'withdrawal'; id: number; decision: 'approved' | 'declined'; amount: string; currency: string; reason: string | null }
  | { kind: 'kyc.decided'; id: number; decision: 'approved' | 'declined'; reason: string | null }
  // staff: what waits for them
  | { kind: 'withdrawal.requested'; id: number; amount: string; currency: string; customer: string }
  | { kind: 'deposit.submitted'; id: number; amount: string; currency: string; gateway: string; customer: string }
  | { kind: 'kyc.submitted'; id: number; type: string; customer: string }
  | { kind: 'leads.assigned'; count: number; list: 'sales' | 'retention'; by: string }
  | { kind: 'deposit.disputed'; id: number; dispute: 'chargeback' | 'dispute' | 'refund' | 'reversal'; phase: 'opened' | 'won' | 'lost' | 'closed'; amount: string; currency: string; gateway: string; customer: string }
  | { kind: 'payout.review'; id: number; gateway: string; amount: string; currency: string; reason: string }
  // a row written before notifications carried values: its stored text is shown
  | { kind?: undefined };

export type NotificationKind = NonNullable<NotificationData['kind']>;
/** The values of one kind of notification. */
export type NotificationOf<K extends NotificationKind> = Extract<NotificationData, { kind: K }>;

/** The `notification` event: the row just written, live. */
export interface NotificationEvent {
  id?: number;
  title: string;
  description: string;
  url: string | null;
  data: NotificationData | null;
  /** false: the page already told the user (the dashboard toasts an engine close from order.closed) */
  toast?: false;
}

// ---------------------------------------------------------------- stream events

/** One instrument's price in a `priceUpdate` (only those that changed, at most every 250 ms). */
export interface PriceUpdateItem { name: string; bids: number; asks: number; closeoutBid?: number; closeoutAsk?: number; t?: number }

/** The `balance` event: a wallet's balance after a ledger entry (post_ledger's NOTIFY). */
export interface BalanceEvent { balanceId: number; balance: string }

/** The `heartbeat` event: a feed api's state (roles 1 and 2, the API status page). */
export interface HeartbeatEvent { api: string; success: boolean; msg: string }

/** The `track` event: a page a customer opened (the Edit Customer page's Tracking tab). */
export interface TrackEvent { id: number; url: string; time: string }

/** The `order.trailed` event: trailing stops the engine moved (throttled, about once a second). */
export interface TrailedEvent { moves: { id: number; loss: string }[] }

/** The events of a user topic (user:{id}): order lifecycle, balance and notifications. */
export interface UserEvents {
  'order.opened': OrderView;
  'order.closed': OrderView;
  'order.modified': OrderView;
  'order.deleted': OrderView;
  'order.trailed': TrailedEvent;
  /** pending orders (docs/specs.md#pending-orders): placed, modified, filled (order_id: the position), cancelled or expired */
  'pending.placed': PendingView;
  'pending.modified': PendingView;
  'pending.filled': PendingView;
  'pending.cancelled': PendingView;
  balance: BalanceEvent;
  notification: NotificationEvent;
}

/**
 * A position opened or left the book (closed, or deleted by staff): the staff topic `exposure`
 * (the admin dashboard's open exposure, docs/specs.md#admin-dashboard). No customer, no money:
 * the page reads the exposure itself when one arrives.
 */
export interface PositionEvent { id: number; instrument: string; side: 'buy' | 'sell' }
export const positionEvent = (o: Pick<OrderView, 'id' | 'instrument' | 'type'>): PositionEvent => ({ id: o.id, instrument: o.instrument, side: o.type });

/** The events of the staff topic `exposure`. */
export interface ExposureEvents {
  'position.opened': PositionEvent;
  'position.closed': PositionEvent;
}

/** Every event the stream carries, by name, with its payload (the stream adds the topic to an object). */
export interface StreamEvents extends UserEvents, ExposureEvents {
  priceUpdate: PriceUpdateItem[];
  heartbeat: HeartbeatEvent;
  track: TrackEvent;
}

export type UserEventName = keyof UserEvents;
export type StreamEventName = keyof StreamEvents;

/** Exactly the keys of T, each once: a list that misses or adds a name does not compile. */
type AllKeys<T, L extends readonly (keyof T)[]> = [keyof T] extends [L[number]] ? L : never;
const allOf = <T>() => <const L extends readonly (keyof T)[]>(list: AllKeys<T, L>) => list;

/** The user topic's events, for a browser to listen to each. */
export const USER_EVENTS = allOf<UserEvents>()([
  'order.opened', 'order.closed', 'order.modified', 'order.deleted', 'order.trailed',
  'pending.placed', 'pending.modified', 'pending.filled', 'pending.cancelled', 'balance', 'notification',
]);
export const PRICE_EVENT = 'priceUpdate' satisfies StreamEventName;
export const HEARTBEAT_EVENT = 'heartbeat' satisfies StreamEventName;
export const TRACK_EVENT = 'track' satisfies StreamEventName;
/** The exposure topic's events. */
export const EXPOSURE_EVENTS = allOf<ExposureEvents>()(['position.opened', 'position.closed']);

/** Every event name the stream carries. */
export const STREAM_EVENTS = allOf<StreamEvents>()([...USER_EVENTS, ...EXPOSURE_EVENTS, PRICE_EVENT, HEARTBEAT_EVENT, TRACK_EVENT]);

/** The events a bus message carries (the hub frames them): everything but the hub's own priceUpdate. */
export type PublishedEventName = Exclude<StreamEventName, typeof PRICE_EVENT>;

export function isStreamEvent(name: string): name is StreamEventName {
  return (STREAM_EVENTS as readonly string[]).includes(name);
}

/** The events anyone may publish through the bus (POST /v1/events and the engine's own). */
export function isPublishedEvent(name: string): name is PublishedEventName {
  return name !== PRICE_EVENT && isStreamEvent(name);
}
