import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { translationsAction, translationsLoader } from '~/modules/languages/languages.server.ts';
import { TranslationsPage } from '~/modules/languages/translations-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/languages/:code');

// /admin/languages/:code — one language's translations (admin only; an unknown code is a 404): modules/languages.
export const loader = (args: LoaderFunctionArgs) => translationsLoader(args);
export const action = (args: ActionFunctionArgs) => translationsAction(args);

export default function Page() {
  return <TranslationsPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
