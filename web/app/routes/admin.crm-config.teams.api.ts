// GET /admin/crm-config/teams/api — the teams as JSON (admin only): modules/crm-config/api.server.ts.
export { teamsApi as loader } from '~/modules/crm-config/api.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm-config/teams/api');
