// GET /uploads/:id: an uploaded file, to whoever its kind's policy lets read it (modules/uploads).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { serveUpload } from '~/modules/uploads/uploads.server.ts';

export function loader({ request, params, context }: LoaderFunctionArgs) {
  return serveUpload(request, params.id, { context });
}
