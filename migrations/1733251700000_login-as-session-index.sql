-- Up Migration
-- Revoking a staff member's sessions also ends the login-as sessions they opened
-- (session.server.ts revokeAllSessions, docs/specs.md#login-as): found by impersonator.
CREATE INDEX sessions_impersonator_idx ON sessions (impersonator_id) WHERE revoked_at IS NULL AND impersonator_id IS NOT NULL;

-- Down Migration
DROP INDEX IF EXISTS sessions_impersonator_idx;
