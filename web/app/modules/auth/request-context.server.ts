// What the visitor-flow actions need from a request: db, rate-limit store, settings, client ip.
import type { AppLoadContext } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { loadAuthConfig } from './auth.server.ts';
import { defaultStore } from './rate-limit.server.ts';

export async function authContext(request: Request, context?: AppLoadContext) {
  const sql = db();
  const [cfg, store] = await Promise.all([loadAuthConfig(sql), defaultStore(sql)]);
  return { sql, cfg, store, ip: clientIp(request, context), userAgent: request.headers.get('user-agent') };
}
