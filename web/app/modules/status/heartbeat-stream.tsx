// The engine's `heartbeat` topic for a staff page (the API status page): a ticket from
// /dashboard/ticket?topics=heartbeat, an EventSource on the engine, a new ticket and a capped
// backoff on every failure (the browser's own retry would reuse an expired ticket).
import { useEffect, useRef, useState } from 'react';
import { backoffMs } from '~/shared/realtime.tsx';
import { HEARTBEAT_EVENT } from '@broker/engine/contract/events';

export function useHeartbeatStream(onBeat: (data: unknown) => void): boolean {
  const ref = useRef(onBeat);
  ref.current = onBeat;
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    let es: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let attempt = 0;
    const retry = () => { attempt++; clearTimeout(timer); timer = setTimeout(connect, backoffMs(attempt)); };
    async function connect() {
      if (stopped) return;
      es?.close();
      es = null;
      let t: { url: string; ticket: string; topics: string };
      try {
        const res = await fetch('/dashboard/ticket?topics=heartbeat', { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(4000) });
        if (!res.ok) throw new Error(String(res.status));
        t = await res.json();
      } catch {
        return retry();
      }
      if (stopped) return;
      const source = new EventSource(`${t.url.replace(/\/$/, '')}/v1/stream?${new URLSearchParams({ ticket: t.ticket, topics: t.topics })}`);
      es = source;
      source.onopen = () => { attempt = 0; setConnected(true); };
      source.onerror = () => {
        source.close();
        if (es !== source) return;
        es = null;
        setConnected(false);
        retry();
      };
      source.addEventListener(HEARTBEAT_EVENT, (e) => {
        try { ref.current(JSON.parse((e as MessageEvent).data)); } catch { /* malformed frame */ }
      });
    }
    void connect();
    return () => { stopped = true; clearTimeout(timer); es?.close(); };
  }, []);
  return connected;
}
