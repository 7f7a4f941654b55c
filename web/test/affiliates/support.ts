// Shared set-up of the affiliate tests: affiliates with keys, API requests, unique valid phones.
import { randomInt } from 'node:crypto';
import type { Sql } from '~/shared/db.server.ts';
import { createUser, sessionFor, uniqueEmail } from '../helpers.ts';
import { generateKey } from '~/modules/affiliates/keys.server.ts';
import { phoneE164 } from '~/shared/contact.server.ts';

export const API = 'http://app.test/api/v1/leads';

export interface Affiliate { id: number; cookie: string; key: string }

export async function affiliate(sql: Sql): Promise<Affiliate> {
  const u = await createUser(sql, { roleId: 4 });
  const { key } = await generateKey(sql, u.id, null);
  return { id: u.id, cookie: (await sessionFor(sql, u.id)).cookie, key };
}

/** A random valid UK mobile number, national digits (7xxx xxxxxx). */
export function ukMobile(): string {
  for (;;) {
    const n = `7${[4, 5, 7, 8, 9][randomInt(5)]}${String(randomInt(1e8)).padStart(8, '0')}`;
    if (phoneE164(`+44${n}`) === `+44${n}`) return n;
  }
}

export function lead(over: Record<string, unknown> = {}) {
  const n = ukMobile();
  return { firstName: 'Jane', lastName: 'Doe', email: uniqueEmail('api'), phone: `+44 ${n.slice(0, 4)} ${n.slice(4)}`, country: 'GB', ...over };
}

export function apiPost(key: string | null, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(API, {
    method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  });
}

export function apiGet(key: string | null, query = '', headers: Record<string, string> = {}): Request {
  return new Request(`${API}${query}`, { headers: { ...(key ? { 'x-api-key': key } : {}), ...headers } });
}
