-- Up Migration
-- The CRM lead lists (docs/specs.md#crm-lead-lists): nine screens over one leads table.
--  * leads.deleted_at: a lead is soft-deleted ('Are you sure to delete this lead?'); the lists never show it.
--  * leads.first_note: the first note's text, kept by a trigger on notes, so the notes column sorts by an index.
--  * search: a trigram GIN index over first name, last name, email and phone (pg_trgm), so
--    '%term%' is answered from the index at a million leads.
--  * every sortable column has a (column, id) index: a page sorted by it is read in index order with
--    the id as the tie-break in the same direction (the lists order by column dir, id dir), either direction.
--    The single-column indexes these replace (a prefix of them) are dropped, as are the (x, id DESC) ones
--    of the assignment columns and the group, whose (x, id) replacements serve the same lookups.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

ALTER TABLE leads ADD COLUMN deleted_at timestamptz;
ALTER TABLE leads ADD COLUMN first_note text;

UPDATE leads l SET first_note = left(n.content, 200)
  FROM (SELECT DISTINCT ON (lead_id) lead_id, content FROM notes ORDER BY lead_id, id) n
 WHERE n.lead_id = l.id;

CREATE FUNCTION leads_first_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE leads SET first_note = left(NEW.content, 200) WHERE id = NEW.lead_id AND first_note IS NULL;
  RETURN NULL;
END $$;
CREATE TRIGGER notes_first_note AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION leads_first_note();

CREATE INDEX leads_search_trgm_idx ON leads
  USING gin ((lower(first_name || ' ' || last_name || ' ' || email || ' ' || phone)) gin_trgm_ops);

DROP INDEX leads_country_idx, leads_city_idx, leads_status_idx, leads_deposited_at_idx, leads_ftd_at_idx,
  leads_last_access_idx, leads_reference_idx, leads_source_idx, leads_funnel_idx, leads_created_at_idx,
  leads_agent_idx, leads_ret_idx, leads_manager_idx, leads_affiliate_idx, leads_group_idx;

CREATE INDEX leads_sort_first_name_idx ON leads (first_name, id);
CREATE INDEX leads_sort_last_name_idx ON leads (last_name, id);
CREATE INDEX leads_sort_email_idx ON leads (email, id);
CREATE INDEX leads_sort_phone_idx ON leads (phone, id);
CREATE INDEX leads_sort_first_note_idx ON leads (first_note, id);
CREATE INDEX leads_sort_country_idx ON leads (country, id);
CREATE INDEX leads_sort_city_idx ON leads (city, id);
CREATE INDEX leads_sort_status_idx ON leads (lead_status, id);
CREATE INDEX leads_sort_group_idx ON leads ("group", id);
CREATE INDEX leads_sort_manager_idx ON leads (manager_id, id);
CREATE INDEX leads_sort_agent_idx ON leads (agent_id, id);
CREATE INDEX leads_sort_ret_idx ON leads (ret_id, id);
CREATE INDEX leads_sort_affiliate_idx ON leads (affiliate_id, id);
CREATE INDEX leads_sort_created_idx ON leads (created_at, id);
CREATE INDEX leads_sort_deposited_idx ON leads (deposited_at, id);
CREATE INDEX leads_sort_ftd_idx ON leads (ftd_at, id);
CREATE INDEX leads_sort_last_access_idx ON leads (last_access, id);
CREATE INDEX leads_sort_funnel_idx ON leads (funnel_link, id);
CREATE INDEX leads_sort_reference_idx ON leads (reference, id);
CREATE INDEX leads_sort_source_idx ON leads (lead_source_id, id);
-- the clients screen sorts within the linked leads
CREATE INDEX leads_sort_user_idx ON leads (user_id, id) WHERE user_id IS NOT NULL;
-- the teams a manager runs and their members: the manager's scope
CREATE INDEX IF NOT EXISTS team_members_team_idx ON team_members (team_id);
-- the new columns' statistics now: until then the planner takes deleted_at IS NULL as rare and
-- chooses bitmap scans and sorts over the index walks the lists are built for
ANALYZE leads;

-- Down Migration
DROP INDEX IF EXISTS team_members_team_idx;
DROP INDEX IF EXISTS leads_sort_user_idx, leads_sort_source_idx, leads_sort_reference_idx, leads_sort_funnel_idx,
  leads_sort_last_access_idx, leads_sort_ftd_idx, leads_sort_deposited_idx, leads_sort_created_idx, leads_sort_affiliate_idx,
  leads_sort_ret_idx, leads_sort_agent_idx, leads_sort_manager_idx, leads_sort_group_idx, leads_sort_status_idx,
  leads_sort_city_idx, leads_sort_country_idx, leads_sort_first_note_idx, leads_sort_phone_idx, leads_sort_email_idx,
  leads_sort_last_name_idx, leads_sort_first_name_idx, leads_search_trgm_idx;
CREATE INDEX leads_group_idx ON leads ("group", id DESC);
CREATE INDEX leads_agent_idx ON leads (agent_id, id DESC);
CREATE INDEX leads_ret_idx ON leads (ret_id, id DESC);
CREATE INDEX leads_manager_idx ON leads (manager_id, id DESC);
CREATE INDEX leads_affiliate_idx ON leads (affiliate_id, id DESC);
CREATE INDEX leads_created_at_idx ON leads (created_at);
CREATE INDEX leads_country_idx ON leads (country);
CREATE INDEX leads_city_idx ON leads (city);
CREATE INDEX leads_status_idx ON leads (lead_status);
CREATE INDEX leads_deposited_at_idx ON leads (deposited_at);
CREATE INDEX leads_ftd_at_idx ON leads (ftd_at);
CREATE INDEX leads_last_access_idx ON leads (last_access);
CREATE INDEX leads_reference_idx ON leads (reference);
CREATE INDEX leads_source_idx ON leads (lead_source_id);
CREATE INDEX leads_funnel_idx ON leads (funnel_link);
DROP TRIGGER IF EXISTS notes_first_note ON notes;
DROP FUNCTION IF EXISTS leads_first_note();
ALTER TABLE leads DROP COLUMN IF EXISTS first_note, DROP COLUMN IF EXISTS deleted_at;
