-- Up Migration
-- The pool of the CRM lists (docs/specs.md#crm-lead-lists): leads of the leads API that no manager, agent or retention
-- agent holds, which every manager sees and assigns. A manager's scope is an OR of indexed arms (manager_id,
-- agent_id / ret_id of their teams' members) and this one: without an index of its own the pool arm would
-- read every live lead of the table. The predicate is the query's condition word for word; ("group", id)
-- gives the screens' group equality and the id order their pages walk.
CREATE INDEX leads_pool_idx ON leads ("group", id)
  WHERE is_live AND manager_id IS NULL AND agent_id IS NULL AND ret_id IS NULL AND deleted_at IS NULL;

-- Down Migration
DROP INDEX leads_pool_idx;
