-- Up Migration
-- The customer lists and Admin & Staffs (web/app/modules/customers, web/app/modules/users):
-- an index behind every sort of the lists, and the live-presence lookup of each listed user.

-- All / Inactive Customers sorted by full name or email (role 3 in front, the id breaking ties);
-- by id they use users_role_id_idx / users_inactive_idx. The name is included so a deep page by name is an
-- index-only scan (the planner wants the column itself, not only lower(full_name)).
CREATE INDEX users_role_name_idx ON users (role_id, lower(full_name), id) INCLUDE (full_name) WHERE deleted_at IS NULL;
CREATE INDEX users_role_email_idx ON users (role_id, email, id) WHERE deleted_at IS NULL;

-- Admin & Staffs: every role but customers, by id, name or email.
CREATE INDEX users_staff_list_idx ON users (id) WHERE deleted_at IS NULL AND role_id <> 3;
CREATE INDEX users_staff_name_idx ON users (lower(full_name), id) WHERE deleted_at IS NULL AND role_id <> 3;
CREATE INDEX users_staff_email_idx ON users (email, id) WHERE deleted_at IS NULL AND role_id <> 3;

-- Online = a live session seen in the last few minutes (modules/customers/online.server.ts).
CREATE INDEX sessions_live_user_idx ON sessions (user_id, last_seen_at DESC) WHERE revoked_at IS NULL;

-- Down Migration
DROP INDEX IF EXISTS sessions_live_user_idx, users_staff_email_idx, users_staff_name_idx, users_staff_list_idx,
  users_role_email_idx, users_role_name_idx;
