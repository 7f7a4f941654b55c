// The bus's streams and what a realtime message on it is. The event names and payloads are the
// contract's (contract/events.ts): the hub frames a message as it comes, so nothing else is sent.
import type { PublishedEventName, StreamEvents } from '../contract/events.ts';

/** Feed ticks, published by the feed, read by every core and gateway. */
export const TICKS = 'ticks';
/** Realtime events (user, track, heartbeat topics), read by every hub. */
export const EVENTS = 'events';
/** Order lifecycle between core processes: the owner of a balance's partition keeps its positions. */
export const ORDERS = 'orders';

/** One realtime message on EVENTS: an event of the contract, for one topic. */
export type RealtimeEvent<E extends PublishedEventName = PublishedEventName> =
  E extends PublishedEventName ? { topic: string; event: E; data: StreamEvents[E] } : never;
