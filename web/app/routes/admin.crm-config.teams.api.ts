// GET /admin/crm-config/teams/api — the teams as JSON (admin only): modules/crm-config/api.server.ts.
export { teamsApi as loader } from '~/modules/crm-config/api.server.ts';
