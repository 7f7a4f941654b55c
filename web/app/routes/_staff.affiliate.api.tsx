import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { apiKeyAction, apiKeyLoader } from '~/modules/affiliates/api-key.server.ts';
import { ApiKeyPage } from '~/modules/affiliates/api-key-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/affiliate/api');

// /affiliate/api — API Key (role 4 from the permission map): modules/affiliates.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return apiKeyLoader(sql, s);
}
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return apiKeyAction(sql, s, await readFormData(request), clientIp(request, context));
}

export default function Page() {
  return <ApiKeyPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
