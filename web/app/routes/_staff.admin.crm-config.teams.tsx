import { teamsAction, teamsLoader } from '~/modules/crm-config/teams.server.ts';
import { TeamsPage } from '~/modules/crm-config/teams-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm-config/teams');

// /admin/crm-config/teams — Teams (role 1 from the permission map): modules/crm-config.
export const loader = teamsLoader;
export const action = teamsAction;

export default function Page() {
  return <TeamsPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
