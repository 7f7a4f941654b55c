// Facts about the incoming request: the client's address and whether it is same-origin.
import type { AppLoadContext } from '@remix-run/node';
import { readCookie, SESSION_COOKIE } from '~/shared/cookies.server.ts';
import { clientIpHeader, env } from './env.server.ts';

declare module '@remix-run/node' {
  interface AppLoadContext {
    /** the socket's remote address, set by web/server.mjs (trust-proxy aware) */
    clientIp?: string;
  }
}

/**
 * The client's IP: from the server's load context, else from the header web/server.mjs sets on
 * every request (trusted only when that server runs: it overwrites any client-sent value);
 * without that server, X-Forwarded-For only when TRUST_PROXY is a hop count N, and then the
 * address the N-th proxy from here saw (never the left-most entry, which the client writes).
 */
export function clientIp(request: Request, context?: AppLoadContext | null): string | null {
  const fromContext = context?.clientIp;
  if (fromContext) return fromContext.replace(/^::ffff:/, '');
  const header = clientIpHeader();
  const fromServer = header ? request.headers.get(header) : null;
  if (fromServer) return fromServer;
  const hops = /^\d+$/.test(env().TRUST_PROXY?.trim() ?? '') ? Number(env().TRUST_PROXY) : 0;
  if (hops > 0) {
    const xff = (request.headers.get('x-forwarded-for') ?? '').split(',').map((a) => a.trim()).filter(Boolean);
    const ip = xff[Math.max(0, xff.length - hops)];
    if (ip) return ip.replace(/^::ffff:/, '');
  }
  return null;
}

/**
 * Rejects cross-site form posts: a request whose Origin (or, without one, Sec-Fetch-Site) shows
 * it came from another site gets 403. Browsers send Origin with every POST, so a request that
 * carries a session cookie but no Origin is refused too; a cookie-less request without Origin
 * (a non-browser client: API clients authenticate with keys, not cookies) passes.
 */
export function assertSameOrigin(request: Request): void {
  const method = request.method.toUpperCase();
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return;
  const origin = request.headers.get('origin');
  const url = new URL(request.url);
  const forwardedHost = env().TRUST_PROXY ? request.headers.get('x-forwarded-host') : null;
  const host = forwardedHost ?? request.headers.get('host') ?? url.host;
  if (origin && origin !== 'null') {
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      throw new Response('Cross-site request refused', { status: 403 });
    }
    if (originHost !== host && originHost !== url.host) throw new Response('Cross-site request refused', { status: 403 });
    return;
  }
  if (origin === 'null') throw new Response('Cross-site request refused', { status: 403 });
  if (readCookie(request, SESSION_COOKIE) !== undefined) throw new Response('Cross-site request refused', { status: 403 });
  const site = request.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') throw new Response('Cross-site request refused', { status: 403 });
}
