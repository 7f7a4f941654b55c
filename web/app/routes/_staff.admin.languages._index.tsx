import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { languagesAction, languagesLoader } from '~/modules/languages/languages.server.ts';
import { LanguagesPage } from '~/modules/languages/languages-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/languages');

// /admin/languages — the languages (admin only, from the permission map): modules/languages.
export const loader = (args: LoaderFunctionArgs) => languagesLoader(args);
export const action = (args: ActionFunctionArgs) => languagesAction(args);

export default function Page() {
  return <LanguagesPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
