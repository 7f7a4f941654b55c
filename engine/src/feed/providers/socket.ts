// One WebSocket connection as a promise: resolves when the socket closes, rejects when it
// cannot open; closes the socket when the signal aborts. Uses the runtime's WebSocket (Bun's
// global), injectable for tests.
import { errorMessage } from './common.ts';

export type WebSocketCtor = new (url: string) => WebSocket;

export interface SocketHandlers {
  open(ws: WebSocket): void;
  message(ws: WebSocket, text: string): void;
}

export function socketSession(url: string, signal: AbortSignal, h: SocketHandlers, Ctor?: WebSocketCtor): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return resolve();
    let ws: WebSocket;
    try {
      ws = new (Ctor ?? WebSocket)(url);
    } catch (e) {
      return reject(new Error(errorMessage(e)));
    }
    let opened = false;
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err) reject(err); else resolve();
    };
    const onAbort = () => {
      try { ws.close(1000, 'stopping'); } catch { /* already closed */ }
      finish();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    ws.onopen = () => {
      opened = true;
      try { h.open(ws); } catch (e) { finish(new Error(errorMessage(e))); try { ws.close(); } catch { /* closed */ } }
    };
    ws.onmessage = (ev: MessageEvent) => {
      const d = ev.data;
      const text = typeof d === 'string' ? d : d instanceof ArrayBuffer ? new TextDecoder().decode(d) : ArrayBuffer.isView(d) ? new TextDecoder().decode(d as Uint8Array) : String(d);
      try { h.message(ws, text); } catch { /* handlers parse defensively; never let one frame kill the link */ }
    };
    ws.onerror = () => {
      if (!opened) finish(new Error('websocket could not connect'));
    };
    ws.onclose = (ev: CloseEvent) => {
      if (!opened) return finish(new Error(`websocket could not connect (close ${ev.code})`));
      if (ev.code === 1000 || ev.code === 1005) finish();
      else finish(new Error(`websocket closed (${ev.code}${ev.reason ? `: ${ev.reason}` : ''})`));
    };
  });
}
