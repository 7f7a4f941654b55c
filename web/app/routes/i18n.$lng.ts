// GET /i18n/{lng}?v={version}: what the browser's i18next needs of a language (its translations
// and English, the fallback), as one JSON text kept per version (translationBundle). Pages name
// the current version; an answer to it is kept by the browser for a year (any edit of the
// translations makes a new version, so a new URL); any other version gets the current texts, not kept.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { listLanguages, translationBundle } from '~/modules/i18n/i18n.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/i18n/:lng');

export async function loader({ request, params }: LoaderFunctionArgs) {
  const sql = db();
  const lng = params.lng ?? '';
  if (!(await listLanguages(sql)).some((l) => l.code === lng)) throw new Response('Not Found', { status: 404 });
  const bundle = await translationBundle(sql, lng);
  const asked = new URL(request.url).searchParams.get('v');
  return new Response(bundle.json, {
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': asked === bundle.version ? 'public, max-age=31536000, immutable' : 'no-cache',
      etag: `"${bundle.version}"`,
    },
  });
}
