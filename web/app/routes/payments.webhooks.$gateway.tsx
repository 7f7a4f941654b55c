import type { ActionFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { handleWebhook } from '~/modules/payments/payments.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/payments/webhooks/:gateway');

// POST /payments/webhooks/:gateway — a payment provider's notification (modules/payments). No
// session and no origin check: the provider's signature is the authentication, verified on the
// raw body, read here before anything parses it.
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'POST') return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
  const a = await handleWebhook(db(), params.gateway ?? '', request);
  return new Response(a.body, { status: a.status, headers: { 'content-type': a.contentType, 'cache-control': 'no-store' } });
}

export function loader() {
  return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
}
