-- Up Migration
-- The audit trail page (/admin/audit) lists audit_events newest first by (created_at, id), a page
-- at a time with keyset pagination (the next page starts after the last row shown), filtered by
-- actor, action, target kind (and id) and a date range. Each filter has an index that gives the
-- rows in that order, so a page costs a short index walk whatever the table's size:
--   audit_events_time_idx: everything, and the date range alone (replaces audit_events_created_at_idx);
--   audit_events_actor_time_idx, audit_events_action_time_idx: one actor, one action;
--   audit_events_kind_time_idx: one kind of target (every order, every deposit);
--   audit_events_target_time_idx: one target (order 42's history).
-- The older (…, id DESC) indexes stay for the readers that order by id.
CREATE INDEX audit_events_time_idx ON audit_events (created_at, id);
CREATE INDEX audit_events_actor_time_idx ON audit_events (actor_id, created_at, id);
CREATE INDEX audit_events_action_time_idx ON audit_events (action, created_at, id);
CREATE INDEX audit_events_kind_time_idx ON audit_events (target_kind, created_at, id);
CREATE INDEX audit_events_target_time_idx ON audit_events (target_kind, target_id, created_at, id);
DROP INDEX IF EXISTS audit_events_created_at_idx;

-- The bell's unread badge counts a user's unread notifications on every page: a partial index
-- holds only those.
CREATE INDEX notifications_unread_idx ON notifications (user_id) WHERE read_at IS NULL;

-- Down Migration
DROP INDEX IF EXISTS notifications_unread_idx;
CREATE INDEX IF NOT EXISTS audit_events_created_at_idx ON audit_events (created_at);
DROP INDEX IF EXISTS audit_events_target_time_idx;
DROP INDEX IF EXISTS audit_events_kind_time_idx;
DROP INDEX IF EXISTS audit_events_action_time_idx;
DROP INDEX IF EXISTS audit_events_actor_time_idx;
DROP INDEX IF EXISTS audit_events_time_idx;
