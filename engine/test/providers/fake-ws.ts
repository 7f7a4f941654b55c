// Local WebSocket servers that speak the providers' documented protocols (tests only).
import type { ServerWebSocket } from 'bun';

type Sock = ServerWebSocket<{ id: number; url: string }>;

export interface FakeServer {
  url: string;
  port: number;
  /** Every text frame received from clients, parsed. */
  received: any[];
  /** Connections opened so far. */
  connections: number;
  /** Connections whose close the server observed. */
  closed: number;
  open(): Sock[];
  /** Sends a raw frame to every open client. */
  push(frame: string | object): void;
  /** Drops every open client (simulates a network reset). */
  drop(code?: number): void;
  stop(): void;
}

function serve(path: string, onOpen: (ws: Sock) => void, onMessage: (ws: Sock, msg: any, raw: string) => void): FakeServer {
  const sockets = new Set<Sock>();
  let id = 0;
  const state = { received: [] as any[], connections: 0, closed: 0 };
  const server = Bun.serve<{ id: number; url: string }, never>({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req, srv) {
      if (srv.upgrade(req, { data: { id: ++id, url: req.url } })) return undefined;
      return new Response('upgrade required', { status: 426 });
    },
    websocket: {
      open(ws) { sockets.add(ws); state.connections++; onOpen(ws); },
      message(ws, raw) {
        const text = typeof raw === 'string' ? raw : new TextDecoder().decode(raw);
        let msg: any = text;
        try { msg = JSON.parse(text); } catch { /* raw */ }
        state.received.push(msg);
        onMessage(ws, msg, text);
      },
      close(ws) { sockets.delete(ws); state.closed++; },
    },
  });
  return {
    url: `ws://127.0.0.1:${server.port}${path}`,
    port: server.port!,
    get received() { return state.received; },
    get connections() { return state.connections; },
    get closed() { return state.closed; },
    open: () => [...sockets],
    push(frame) { const s = typeof frame === 'string' ? frame : JSON.stringify(frame); for (const ws of sockets) ws.send(s); },
    drop(code = 1011) { for (const ws of sockets) ws.close(code, 'reset'); },
    stop() { server.stop(true); },
  };
}

/**
 * Polygon (Massive) cluster: connected status on open; auth with `goodKey` → auth_success, else
 * auth_failed and close; subscribe → one "subscribed to: X" status per channel.
 */
export function fakePolygon(path: '/forex' | '/crypto', goodKey = 'poly-key'): FakeServer {
  return serve(path,
    (ws) => ws.send(JSON.stringify([{ ev: 'status', status: 'connected', message: 'Connected Successfully' }])),
    (ws, msg) => {
      if (msg?.action === 'auth') {
        if (msg.params === goodKey) ws.send(JSON.stringify([{ ev: 'status', status: 'auth_success', message: 'authenticated' }]));
        else { ws.send(JSON.stringify([{ ev: 'status', status: 'auth_failed', message: 'authentication failed' }])); ws.close(1008, 'auth failed'); }
      } else if (msg?.action === 'subscribe') {
        const channels = String(msg.params).split(',');
        ws.send(JSON.stringify(channels.map((c) => ({ ev: 'status', status: 'success', message: `subscribed to: ${c}` }))));
      }
    });
}

/**
 * EOD us-quote: {"status_code":200,"message":"Authorized"} on open when the api_token is good,
 * {"status":401,...} and close otherwise; subscribe is recorded (symbols comma separated).
 */
export function fakeEod(goodKey = 'eod-key', opts: { authorize?: boolean } = {}): FakeServer {
  return serve('/ws/us-quote',
    (ws) => {
      const token = new URL(ws.data.url).searchParams.get('api_token');
      if (token !== goodKey) { ws.send(JSON.stringify({ status: 401, message: 'Unauthorized' })); ws.close(1008, 'unauthorized'); return; }
      if (opts.authorize !== false) ws.send(JSON.stringify({ status_code: 200, message: 'Authorized' }));
    },
    () => {});
}
