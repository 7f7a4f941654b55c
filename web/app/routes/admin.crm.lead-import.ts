// POST /admin/crm/lead-import: upload a lead CSV and queue its import; GET ?id=N: an import's
// progress (the page polls it), without id: the caller's latest import. Admins and managers
// (permissions: the /admin/crm/ prefix). modules/crm/import-route.server.ts.
export { importAction as action, importLoader as loader } from '~/modules/crm/import-route.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/crm/lead-import');
