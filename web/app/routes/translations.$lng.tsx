// GET /translations/{lng}: the language's translations. POST /translations/{lng} {key}: records a
// key the UI asked for that has none yet (docs/specs.md#client-calls): signed-in sessions only, and only
// keys of the code's key list (whatever is stored is shipped to every page).
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { assertSameOrigin, clientIp } from '~/shared/request.server.ts';
import { isKnownKey, loadTranslations, saveMissingKey } from '~/modules/i18n/i18n.server.ts';
import { currentSession } from '~/modules/auth/guards.server.ts';
import { defaultStore, hitLimit, LIMITS } from '~/modules/auth/rate-limit.server.ts';
import { readFormData, readTextCapped } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/translations/:lng');

export async function loader({ params }: LoaderFunctionArgs) {
  const lng = params.lng ?? '';
  if (!/^[a-z]{2}(-[A-Za-z]{2,4})?$/.test(lng)) throw new Response('Not Found', { status: 404 });
  return Response.json(await loadTranslations(db(), lng), { headers: { 'cache-control': 'no-cache' } });
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  if (request.method !== 'POST') throw new Response('Method Not Allowed', { status: 405 });
  const sql = db();
  if (!(await currentSession(request, sql, context))) return Response.json({ message: 'Sign in first' }, { status: 401 });
  const ip = clientIp(request, context) ?? 'unknown';
  const hit = await hitLimit(await defaultStore(sql), LIMITS.translationsIp, ip);
  if (!hit.allowed) return Response.json({ message: 'Too many requests' }, { status: 429, headers: { 'retry-after': String(hit.retryAfterSeconds) } });
  let key: unknown;
  const type = request.headers.get('content-type') ?? '';
  // a key is at most 500 characters: a body of 16 KiB is plenty (read capped, as it streams)
  if (type.includes('application/json')) key = jsonKey(await readTextCapped(request, 16 * 1024).catch(() => ''));
  else key = (await readFormData(request)).get('key');
  if (typeof key !== 'string' || key.length === 0 || key.length > 500) return Response.json({ message: 'key is required' }, { status: 400 });
  // not a key of the code (stored data shown through t(), a gateway's title): nothing to record,
  // and no error for the page that asked (the browser reports every key it lacks)
  if (!isKnownKey(key)) return Response.json({ saved: false });
  const saved = await saveMissingKey(sql, params.lng ?? '', key);
  return Response.json({ saved });
}

/** The `key` of a JSON body, or undefined for anything else (bad JSON included: answered 400 above). */
function jsonKey(text: string): unknown {
  try {
    return (JSON.parse(text) as { key?: unknown } | null)?.key;
  } catch {
    return undefined;
  }
}
