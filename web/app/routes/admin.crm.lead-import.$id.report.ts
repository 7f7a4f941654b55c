// GET /admin/crm/lead-import/:id/report: every rejected row of an import with its reason, as CSV (streamed).
export { importReport as loader } from '~/modules/crm/import-route.server.ts';
