// Publishing a realtime event: to the bus's EVENTS stream, which every hub (a core's, a
// gateway's) fans out. Only the contract's events, with their payloads (contract/events.ts).
import type { Bus } from '../bus/index.ts';
import { EVENTS, type RealtimeEvent } from '../bus/streams.ts';
import type { PublishedEventName, StreamEvents } from '../contract/events.ts';

/** Resolves to the bus id of the message, or undefined when the bus refused it (logged). */
export function publishEvent<E extends PublishedEventName>(bus: Bus, topic: string, event: E, data: StreamEvents[E]): Promise<string | undefined> {
  const e = { topic, event, data } as RealtimeEvent;
  return bus.publish(EVENTS, e).catch((err) => { console.error('[realtime] publish', (err as Error).message); return undefined; });
}
