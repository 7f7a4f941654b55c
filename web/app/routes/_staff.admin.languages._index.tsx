import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { languagesAction, languagesLoader } from '~/modules/languages/languages.server.ts';
import { LanguagesPage } from '~/modules/languages/languages-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';

// /admin/languages — the languages (admin only, from the permission map): modules/languages.
export const loader = (args: LoaderFunctionArgs) => languagesLoader(args);
export const action = (args: ActionFunctionArgs) => languagesAction(args);

export default function Page() {
  return <LanguagesPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
