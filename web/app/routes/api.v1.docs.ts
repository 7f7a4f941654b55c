// /api/v1/docs — the readable documentation of the leads API (modules/affiliates/api-docs.server.ts).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { apiDocsHtml } from '~/modules/affiliates/api-docs.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/api/v1/docs');

export async function loader({ request }: LoaderFunctionArgs) {
  const origin = new URL(request.url).origin;
  const download = new URL(request.url).searchParams.has('download');
  return new Response(apiDocsHtml(origin), {
    headers: {
      'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=300',
      ...(download ? { 'content-disposition': 'attachment; filename="leads-api.html"' } : {}),
    },
  });
}
