// The dashboard reloads its data once per change, and the stream is what reloads it: an order
// placed, closed or modified arrives as order.* and balance events on the user's stream
// (engine/src/contract/events.ts), so the command's own answer does not reload the page while the
// stream is open, and the events of one burst make one revalidation.
import { useEffect } from 'react';
import { useRevalidator, type ShouldRevalidateFunction } from '@remix-run/react';

/** The dashboard's commands whose change the stream delivers (order.opened/closed/modified, balance). */
const STREAMED_INTENTS = new Set(['place', 'close', 'modify', 'place-pending', 'modify-pending', 'cancel-pending']);

/** Events closer together than this make one revalidation (order.opened and balance come within ms). */
export const REFRESH_COALESCE_MS = 150;

/** Whether the dashboard's stream is open now: without it, an answer must reload the page itself. */
let streamOpen = false;
export function setStreamOpen(open: boolean) { streamOpen = open; }

/**
 * shouldRevalidate of the dashboard and of the client layout around it: a place, close or modify
 * the engine accepted does not reload after its answer while the stream is open (its events do,
 * once). A refusal, a favourite, anything else: as Remix would.
 */
export const orderAnswerRevalidates: ShouldRevalidateFunction = ({ formMethod, formAction, formData, actionResult, defaultShouldRevalidate }) => {
  if (!streamOpen || formMethod?.toUpperCase() !== 'POST' || !formAction) return defaultShouldRevalidate;
  const path = new URL(formAction, 'http://x').pathname.toLowerCase().replace(/\/+$/, '');
  const ok = (actionResult as { ok?: unknown } | undefined)?.ok === true;
  if (path === '/dashboard' && ok && STREAMED_INTENTS.has(String(formData?.get('intent')))) return false;
  return defaultShouldRevalidate;
};

// One revalidation for every listener of the page (the dashboard's order events, the layout's
// notifications): a trailing timer, and the latest revalidate function useStreamRefresh saw. A
// revalidation asked for while one is in flight restarts it (React Router interrupts the one in
// flight), so what it loads is never older than the event.
const shared = {
  timer: undefined as ReturnType<typeof setTimeout> | undefined,
  revalidate: null as (() => void) | null,
};

function schedule() {
  clearTimeout(shared.timer);
  shared.timer = setTimeout(() => {
    shared.timer = undefined;
    shared.revalidate?.();
  }, REFRESH_COALESCE_MS);
}

/** A refresh for stream events: the events of one burst (closer than REFRESH_COALESCE_MS) make one revalidation. */
export function useStreamRefresh(): () => void {
  const { revalidate } = useRevalidator();
  useEffect(() => {
    shared.revalidate = revalidate;
  }, [revalidate]);
  return schedule;
}
