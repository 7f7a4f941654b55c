// GET /admin/crm/lead-import/:id/report: every rejected row of an import with its reason, as CSV (streamed).
export { importReport as loader } from '~/modules/crm/import-route.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm/lead-import/:id/report');
