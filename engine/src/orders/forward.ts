// Order lifecycle between core processes (bus stream ORDERS): a command settled on one core is
// forwarded to the owner of the balance's partition, which keeps its positions in its risk index.
import type { Bus } from '../bus/index.ts';
import { ORDERS } from '../bus/streams.ts';
import type { OrderView, PendingView } from './view.ts';

export type OrderMessage =
  | { op: 'opened'; order: OrderView; stopout: number; balance: string }
  | { op: 'closed'; order: OrderView; balanceAfter: string | null }
  | { op: 'modified' | 'deleted'; order: OrderView }
  | { op: 'partial'; order: OrderView; position: OrderView; balanceAfter: string | null }
  | { op: 'pending'; pending: PendingView };

export function forwardOrder(bus: Bus, m: OrderMessage) {
  bus.publish(ORDERS, m).catch((err) => console.error('[core] orders bus', (err as Error).message));
}

/** Follows the orders settled by other cores; answers the unsubscribe. */
export function followOrders(bus: Bus, apply: (m: OrderMessage) => void): () => void {
  return bus.subscribe<OrderMessage>(ORDERS, (m) => apply(m.data));
}
