// GET /admin/crm-config/sales-statuses/api — the sales statuses as JSON (roles 1, 2): modules/crm-config/api.server.ts.
export { salesStatusesApi as loader } from '~/modules/crm-config/api.server.ts';
