// GET /uploads/:id: an uploaded file, to whoever its kind's policy lets read it (modules/uploads).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { serveUpload } from '~/modules/uploads/uploads.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/uploads/:id');

export function loader({ request, params, context }: LoaderFunctionArgs) {
  return serveUpload(request, params.id, { context });
}
