-- Up Migration
-- CRM configuration (/admin/crm-config/sales-statuses, /admin/crm-config/teams, /admin/promo-code;
-- docs/specs.md#crm-configuration).
--
-- Sales statuses: exactly one default. sales_statuses_one_default (data model) allows at most one;
-- the deferred constraint trigger below refuses, at commit, a change that leaves statuses without
-- a default (unsetting or deleting the default: the web switches the default by unsetting the old
-- one and setting the new one in one transaction). A table with no default yet (a fresh install)
-- may get statuses: the web makes the first one the default.
UPDATE sales_statuses SET is_default = true
 WHERE id = (SELECT min(id) FROM sales_statuses) AND NOT EXISTS (SELECT 1 FROM sales_statuses WHERE is_default);

CREATE FUNCTION sales_statuses_keep_default() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.is_default AND EXISTS (SELECT 1 FROM sales_statuses)
     AND NOT EXISTS (SELECT 1 FROM sales_statuses WHERE is_default) THEN
    RAISE EXCEPTION 'one sales status must stay the default' USING ERRCODE = 'check_violation', CONSTRAINT = 'sales_statuses_default_kept';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER sales_statuses_default_kept AFTER UPDATE OF is_default OR DELETE ON sales_statuses
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION sales_statuses_keep_default();

-- The status a new lead gets: the default one (any writer that leaves lead_status out).
CREATE FUNCTION default_sales_status() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT status FROM sales_statuses WHERE is_default), 'New')
$$;
ALTER TABLE leads ALTER COLUMN lead_status SET DEFAULT default_sales_status();

-- the list sorts by status and by the default flag
CREATE INDEX sales_statuses_status_idx ON sales_statuses (status);
CREATE INDEX sales_statuses_default_idx ON sales_statuses (is_default, id);

-- Teams: the list sorts by name (code is unique already, manager_id indexed).
CREATE INDEX teams_name_idx ON teams (name);

-- Promo codes: one live code per owner. Generating a new one revokes the previous one (kept, so
-- the customers who signed up with it still point at it); sign-up accepts live codes only.
ALTER TABLE promo_codes ADD COLUMN revoked_at timestamptz;
UPDATE promo_codes p SET revoked_at = now()
 WHERE owner_id IS NOT NULL
   AND id <> (SELECT max(id) FROM promo_codes q WHERE q.owner_id = p.owner_id);
CREATE UNIQUE INDEX promo_codes_one_live ON promo_codes (owner_id) WHERE revoked_at IS NULL AND owner_id IS NOT NULL;
-- the generation limit counts an owner's codes of the last hour
CREATE INDEX promo_codes_owner_created_idx ON promo_codes (owner_id, created_at);

-- Down Migration
DROP INDEX IF EXISTS promo_codes_owner_created_idx;
DROP INDEX IF EXISTS promo_codes_one_live;
ALTER TABLE promo_codes DROP COLUMN IF EXISTS revoked_at;
DROP INDEX IF EXISTS teams_name_idx;
DROP INDEX IF EXISTS sales_statuses_default_idx;
DROP INDEX IF EXISTS sales_statuses_status_idx;
ALTER TABLE leads ALTER COLUMN lead_status SET DEFAULT 'New';
DROP FUNCTION IF EXISTS default_sales_status();
DROP TRIGGER IF EXISTS sales_statuses_default_kept ON sales_statuses;
DROP FUNCTION IF EXISTS sales_statuses_keep_default();
