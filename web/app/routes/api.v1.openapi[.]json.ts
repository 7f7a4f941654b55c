// /api/v1/openapi.json — the OpenAPI 3 description of the leads API (public: it holds no secret).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { openApiDocument } from '~/modules/affiliates/openapi.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/api/v1/openapi.json');

export async function loader({ request }: LoaderFunctionArgs) {
  const download = new URL(request.url).searchParams.has('download');
  return new Response(JSON.stringify(openApiDocument(new URL(request.url).origin), null, 2), {
    headers: {
      'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300',
      ...(download ? { 'content-disposition': 'attachment; filename="leads-api-openapi.json"' } : {}),
    },
  });
}
