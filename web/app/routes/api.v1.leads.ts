// /api/v1/leads — the leads API (modules/affiliates/leads-api.server.ts). Outside the pages' session
// and Origin checks: authenticated by an API key header only, cookies are never read here.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { getLeads, postLeads } from '~/modules/affiliates/leads-api.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/api/v1/leads');

export async function loader({ request }: LoaderFunctionArgs) {
  return getLeads(db(), request);
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return new Response(JSON.stringify({ error: 'Method not allowed' }), { status: 405, headers: { allow: 'GET, POST', 'content-type': 'application/json' } });
  return postLeads(db(), request);
}
