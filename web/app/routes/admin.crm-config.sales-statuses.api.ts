// GET /admin/crm-config/sales-statuses/api — the sales statuses as JSON (roles 1, 2): modules/crm-config/api.server.ts.
export { salesStatusesApi as loader } from '~/modules/crm-config/api.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm-config/sales-statuses/api');
