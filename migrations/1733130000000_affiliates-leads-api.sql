-- Up Migration
-- The affiliate portal and the leads API (issue 15, docs/specs.md#affiliates-and-the-leads-api).
--  * leads.email_norm: the email trimmed and lower-cased (generated), leads.phone_e164: the phone in
--    E.164 (the API writes it with libphonenumber-js and the lead's country; the trigger below keeps
--    an international spelling '+…' / '00…' of any other writer). Both indexed (live leads only), so
--    the API's duplicate check is two index lookups.
--  * affiliate_api_keys: only the sha-256 of a key is kept, with a short visible prefix; the
--    encrypted copy is no longer written (nullable, emptied).
--  * api_idempotency: the first answer to a client-supplied id, replayed for the same body.
--  * leads.ftd_at / deposited_at: kept by a trigger on deposits (first / latest approved real
--    deposit of the lead's linked customer), backfilled here.
ALTER TABLE leads ADD COLUMN email_norm text GENERATED ALWAYS AS (lower(btrim(email))) STORED;
ALTER TABLE leads ADD COLUMN phone_e164 text;

CREATE FUNCTION lead_phone_key(p text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN d ~ '^\+[1-9][0-9]{6,14}$' THEN d
    WHEN d ~ '^00[1-9][0-9]{6,14}$' THEN '+' || substr(d, 3)
    ELSE NULL END
  FROM (SELECT regexp_replace(coalesce(p, ''), '[^0-9+]', '', 'g') AS d) x
$$;

UPDATE leads SET phone_e164 = lead_phone_key(phone) WHERE phone <> '';

-- a writer that changes the phone without giving its E.164 form gets the international spelling's
CREATE FUNCTION leads_phone_e164() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.phone_e164 IS NULL THEN NEW.phone_e164 := lead_phone_key(NEW.phone); END IF;
  ELSIF NEW.phone IS DISTINCT FROM OLD.phone AND NEW.phone_e164 IS NOT DISTINCT FROM OLD.phone_e164 THEN
    NEW.phone_e164 := lead_phone_key(NEW.phone);
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER leads_phone_e164 BEFORE INSERT OR UPDATE ON leads FOR EACH ROW EXECUTE FUNCTION leads_phone_e164();

CREATE INDEX leads_email_norm_idx ON leads (email_norm, id) WHERE deleted_at IS NULL AND email_norm <> '';
CREATE INDEX leads_phone_e164_idx ON leads (phone_e164, id) WHERE deleted_at IS NULL AND phone_e164 IS NOT NULL;

ALTER TABLE affiliate_api_keys ALTER COLUMN key_encrypted DROP NOT NULL;
ALTER TABLE affiliate_api_keys ADD COLUMN key_prefix text NOT NULL DEFAULT '';
UPDATE affiliate_api_keys SET key_encrypted = NULL;

CREATE TABLE api_idempotency (
  owner        text NOT NULL,            -- 'affiliate:<id>' or 'broker'
  idem_key     text NOT NULL,
  request_hash text NOT NULL,            -- sha-256 of the request body
  status       int NOT NULL,
  response     jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (owner, idem_key)
);
CREATE INDEX api_idempotency_created_idx ON api_idempotency (created_at);

CREATE FUNCTION deposits_lead_ftd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = 'approved' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'approved')
     AND EXISTS (SELECT 1 FROM balances b WHERE b.id = NEW.balance_id AND b.mode = 'real') THEN
    UPDATE leads SET ftd_at = coalesce(ftd_at, coalesce(NEW.decided_at, now())),
                     deposited_at = greatest(deposited_at, coalesce(NEW.decided_at, now()))
     WHERE user_id = NEW.user_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER deposits_lead_ftd AFTER INSERT OR UPDATE OF status ON deposits FOR EACH ROW EXECUTE FUNCTION deposits_lead_ftd();

UPDATE leads l SET ftd_at = coalesce(l.ftd_at, d.first_at), deposited_at = greatest(l.deposited_at, d.last_at)
  FROM (SELECT d.user_id, min(coalesce(d.decided_at, d.created_at)) AS first_at, max(coalesce(d.decided_at, d.created_at)) AS last_at
          FROM deposits d JOIN balances b ON b.id = d.balance_id AND b.mode = 'real'
         WHERE d.status = 'approved' GROUP BY d.user_id) d
 WHERE l.user_id = d.user_id;

-- Down Migration
DROP TRIGGER IF EXISTS deposits_lead_ftd ON deposits;
DROP FUNCTION IF EXISTS deposits_lead_ftd();
DROP TABLE IF EXISTS api_idempotency;
ALTER TABLE affiliate_api_keys DROP COLUMN IF EXISTS key_prefix;
UPDATE affiliate_api_keys SET key_encrypted = '' WHERE key_encrypted IS NULL;
ALTER TABLE affiliate_api_keys ALTER COLUMN key_encrypted SET NOT NULL;
DROP INDEX IF EXISTS leads_phone_e164_idx, leads_email_norm_idx;
DROP TRIGGER IF EXISTS leads_phone_e164 ON leads;
DROP FUNCTION IF EXISTS leads_phone_e164();
ALTER TABLE leads DROP COLUMN IF EXISTS phone_e164;
ALTER TABLE leads DROP COLUMN IF EXISTS email_norm;
DROP FUNCTION IF EXISTS lead_phone_key(text);
