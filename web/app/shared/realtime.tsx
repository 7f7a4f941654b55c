// One SSE connection to the engine per page (docs/specs.md#realtime-tickets). The ticket comes
// from /dashboard/ticket each time the stream opens, so a reconnect after a network drop or an
// expired ticket works; user events resume after the last id seen.
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { EXPOSURE_EVENTS, PRICE_EVENT, TRACK_EVENT, USER_EVENTS, type PriceUpdateItem, type StreamEventName } from '@broker/engine/contract/events';

export type PriceItem = PriceUpdateItem;
/** The events and payloads are the engine's contract (engine/src/contract/events.ts). */
export type RealtimeListener = (event: StreamEventName, data: unknown) => void;

/** Retries back off from 0.5 s, doubling, to at most this: a dropped stream is back within it. */
export const MAX_BACKOFF_MS = 5000;
const TICKET_TIMEOUT_MS = 4000;
// a live engine answers a stream's headers at once: 5 s without them is a dead connection
const OPEN_TIMEOUT_MS = 5000;
export const backoffMs = (attempt: number) => Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.max(0, attempt - 1));

interface Ctx { subscribe: (fn: RealtimeListener) => () => void; connected: boolean }
const RealtimeContext = createContext<Ctx>({ subscribe: () => () => {}, connected: false });

export function useRealtime(fn: RealtimeListener) {
  const { subscribe } = useContext(RealtimeContext);
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => subscribe((e, d) => ref.current(e, d)), [subscribe]);
}

export function useRealtimeStatus() {
  return useContext(RealtimeContext).connected;
}

/**
 * `track`: a staff page following one customer's visits (the Edit Customer page's Tracking tab):
 * the stream carries only track:{id} ('track' events), with a ticket /dashboard/ticket signs only
 * for a staff member who may open that customer.
 * `userOnly`: the back-office layout: the signed-in user's own topic (user:{id}: their
 * notifications), no prices. A page that needs prices or a customer's visits mounts its own
 * provider inside it.
 */
/**
 * `exposure`: the admin dashboard's open exposure: prices and the positions opened and closed
 * (the staff topic `exposure`, whose ticket /dashboard/ticket signs only for the dashboard's roles).
 */
/**
 * `off`: no stream at all (a staff member who must enrol in two-factor sign-in first, whose
 * ticket the server refuses until then).
 */
export function RealtimeProvider({ children, pricesOnly = false, userOnly = false, exposure = false, track, off = false }: { children: ReactNode; pricesOnly?: boolean; userOnly?: boolean; exposure?: boolean; track?: number; off?: boolean }) {
  const listeners = useRef(new Set<RealtimeListener>());
  const [connected, setConnected] = useState(false);

  const subscribe = useCallback((fn: RealtimeListener) => {
    listeners.current.add(fn);
    return () => void listeners.current.delete(fn);
  }, []);

  useEffect(() => {
    if (off) return;
    let es: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let attempt = 0;
    let lastEventId = '';
    // each connect() has a number: an older one still awaiting its ticket must not schedule
    // another retry (that could push the next try out by a whole backoff after 'online')
    let generation = 0;
    let lastAttempt = 0;
    const emit = (event: StreamEventName, data: unknown) => {
      for (const fn of listeners.current) fn(event, data);
    };

    const schedule = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(connect, ms);
    };
    const retry = () => {
      attempt++;
      schedule(backoffMs(attempt));
    };

    async function connect() {
      if (stopped) return;
      lastAttempt = Date.now();
      const gen = ++generation;
      clearTimeout(timer);
      es?.close();
      es = null;
      let t: { url: string; ticket: string; topics: string };
      try {
        const res = await fetch(`/dashboard/ticket${track ? `?track=${track}` : exposure ? '?topics=exposure' : pricesOnly ? '?topics=prices' : userOnly ? '?topics=user' : ''}`, {
          headers: { accept: 'application/json' }, signal: AbortSignal.timeout(TICKET_TIMEOUT_MS),
        });
        if (!res.ok) throw new Error(String(res.status));
        t = await res.json();
      } catch {
        if (gen === generation) retry();
        return;
      }
      if (stopped || gen !== generation) return;
      const q = new URLSearchParams({ ticket: t.ticket, topics: t.topics });
      if (lastEventId) q.set('lastEventId', lastEventId);
      const source = new EventSource(`${t.url.replace(/\/$/, '')}/v1/stream?${q}`);
      es = source;
      // a stream that neither opens nor fails (a half-open connection) is restarted too
      schedule(OPEN_TIMEOUT_MS);
      source.onopen = () => {
        if (es !== source) return;
        clearTimeout(timer);
        attempt = 0;
        setConnected(true);
      };
      source.onerror = () => {
        // the browser would retry with the same (possibly expired) ticket: start over instead
        source.close();
        if (es !== source) return;
        es = null;
        setConnected(false);
        retry();
      };
      source.addEventListener(PRICE_EVENT, (e) => {
        try {
          emit(PRICE_EVENT, JSON.parse((e as MessageEvent).data));
        } catch { /* malformed frame */ }
      });
      for (const name of (track ? [TRACK_EVENT] : exposure ? EXPOSURE_EVENTS : USER_EVENTS) as readonly StreamEventName[]) {
        source.addEventListener(name, (e) => {
          const m = e as MessageEvent;
          if (m.lastEventId) lastEventId = m.lastEventId;
          let data: unknown = null;
          try { data = JSON.parse(m.data); } catch { /* keep null */ }
          emit(name, data);
        });
      }
    }

    // the network is back: reconnect now, whatever the backoff had reached
    const online = () => {
      attempt = 0;
      void connect();
    };
    // the browser knows the network is gone: drop the stream now rather than wait for a timeout;
    // keep trying at the capped backoff in case 'online' never comes
    const offline = () => {
      generation++;
      es?.close();
      es = null;
      setConnected(false);
      schedule(MAX_BACKOFF_MS);
    };
    window.addEventListener('online', online);
    window.addEventListener('offline', offline);
    // a safety net: whatever lost the retry (a request that never settled, a dropped timer), a
    // stream that is not open is tried again once the longest wait for one attempt has passed
    const watchdog = setInterval(() => {
      if (stopped || es?.readyState === EventSource.OPEN) return;
      if (Date.now() - lastAttempt > MAX_BACKOFF_MS + TICKET_TIMEOUT_MS) void connect();
    }, 1000);
    void connect();
    return () => {
      stopped = true;
      clearInterval(watchdog);
      clearTimeout(timer);
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offline);
      es?.close();
    };
  }, [pricesOnly, userOnly, exposure, track, off]);

  return <RealtimeContext.Provider value={{ subscribe, connected }}>{children}</RealtimeContext.Provider>;
}
