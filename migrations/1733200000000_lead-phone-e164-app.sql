-- Up Migration
-- phone_e164 is written by the app only, with libphonenumber-js (web/app/modules/crm/contact.server.ts),
-- by every writer of a lead's phone or country (leads API, CSV import, CRM add and edit, sign-up).
-- The trigger of 1733130000000 is dropped: it read only '+' / '00' spellings with a regex, so
--  * a second rule disagreed with the first ('+44 (0)7700 900123' was '+4407700900123' for it, and it
--    gave a key to numbers libphonenumber refuses, where the app had decided there was none), and
--  * on UPDATE it could not tell a writer that set the same E.164 again from one that set none: staff
--    re-spelling a national number ('030 1234567' to '030 123 4567', same E.164) lost its key to NULL.
-- Leads written before (national numbers typed by staff, sign-ups, the trigger's regex keys) and any
-- row a raw SQL writer leaves without a key are (re)computed by the backfill job
-- (web/app/modules/crm/phone-backfill.server.ts): keyset batches by id from lead_phone_backfill.last_id,
-- run by the web processes in the background and by `npm run leads:phones`.
DROP TRIGGER IF EXISTS leads_phone_e164 ON leads;
DROP FUNCTION IF EXISTS leads_phone_e164();
DROP FUNCTION IF EXISTS lead_phone_key(text);

CREATE TABLE lead_phone_backfill (
  name        text PRIMARY KEY,
  last_id     bigint NOT NULL DEFAULT 0,          -- every lead with id <= last_id has been checked
  checked     bigint NOT NULL DEFAULT 0,          -- leads read since the last restart from 0
  changed     bigint NOT NULL DEFAULT 0,          -- of which phone_e164 was written
  started_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO lead_phone_backfill (name) VALUES ('phone_e164');

-- Down Migration
DROP TABLE IF EXISTS lead_phone_backfill;
CREATE FUNCTION lead_phone_key(p text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN d ~ '^\+[1-9][0-9]{6,14}$' THEN d
    WHEN d ~ '^00[1-9][0-9]{6,14}$' THEN '+' || substr(d, 3)
    ELSE NULL END
  FROM (SELECT regexp_replace(coalesce(p, ''), '[^0-9+]', '', 'g') AS d) x
$$;
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
