-- Up Migration
-- The Clients screen holds leads of several groups: sorting it by group reads this index (the other
-- screens hold one group, where the group sort is the id order of that group's index).
CREATE INDEX leads_clients_group_idx ON leads ("group", id) WHERE user_id IS NOT NULL;

-- Down Migration
DROP INDEX IF EXISTS leads_clients_group_idx;
