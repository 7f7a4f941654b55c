import { apiKeyAction, apiKeyLoader } from '~/modules/affiliates/api-key.server.ts';
import { ApiKeyPage } from '~/modules/affiliates/api-key-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/affiliate/api');

// /affiliate/api — API Key (role 4 from the permission map): modules/affiliates.
export const loader = apiKeyLoader;
export const action = apiKeyAction;

export default function Page() {
  return <ApiKeyPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
