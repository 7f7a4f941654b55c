// GET /admin/sign-in (any case): a usual spelling of sign-in, which lives at '/' (docs/specs.md#client-pages).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { toSignIn } from '~/modules/auth/sign-in-alias.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/sign-in');

export const loader = ({ request }: LoaderFunctionArgs) => toSignIn(request.url);
