-- Up Migration
-- The lead lists' indexes, measured at a million leads (README "CRM lead lists at scale"):
--  * one small index per group instead of ("group", id): each lead is in exactly one of them, so a
--    list's first page of its group is read in id order without the planner walking the primary key
--    past another group's block of ids (the 100,000 clients' leads sit at the top), and a bulk move
--    writes one entry as before;
--  * indexes no list reads any more are dropped, so a bulk move of 100,000 leads writes fewer entries:
--    the live flag and (group, status) / (group, created_at) ones (the (status, id) and (created_at, id)
--    indexes serve those filters), the email and phone pattern indexes (search goes through the
--    trigram index from 3 characters; shorter terms match name prefixes and ids), and (user_id, id),
--    which leads_clients_idx already covers.
CREATE INDEX leads_sales_idx ON leads (id) WHERE "group" = 'sales';
CREATE INDEX leads_retentions_idx ON leads (id) WHERE "group" = 'retentions';
CREATE INDEX leads_archived_idx ON leads (id) WHERE "group" = 'archived';
DROP INDEX leads_sort_group_idx, leads_live_idx, leads_group_status_idx, leads_group_created_idx,
  leads_email_idx, leads_phone_idx, leads_sort_user_idx;
ANALYZE leads;

-- Down Migration
CREATE INDEX leads_sort_user_idx ON leads (user_id, id) WHERE user_id IS NOT NULL;
CREATE INDEX leads_phone_idx ON leads (phone text_pattern_ops);
CREATE INDEX leads_email_idx ON leads (email text_pattern_ops);
CREATE INDEX leads_group_created_idx ON leads ("group", created_at);
CREATE INDEX leads_group_status_idx ON leads ("group", lead_status, id DESC);
CREATE INDEX leads_live_idx ON leads (is_live, id DESC);
CREATE INDEX leads_sort_group_idx ON leads ("group", id);
DROP INDEX IF EXISTS leads_archived_idx, leads_retentions_idx, leads_sales_idx;
