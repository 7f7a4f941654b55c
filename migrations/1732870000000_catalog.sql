-- Up Migration
-- The trading configuration pages (instruments, plans, spreads, lots: docs/specs.md#trading-configuration).
--
-- 1. Spreads and lot states are read by the engine's place context (engine_place_context), which the
--    engine caches per user and instrument; the fingerprint re-check makes a stale cache safe but
--    costs a retry. A change NOTIFYs engine_cache { kind: 'settings', table } so the engine drops
--    its cached contexts at once, like an instrument or plan change does. Per statement: one save
--    of the five spreads is one notification. The engine's own writes never touch these tables.
CREATE FUNCTION notify_engine_cache_settings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('engine_cache', json_build_object('kind', 'settings', 'table', TG_TABLE_NAME)::text);
  RETURN NULL;
END $$;

CREATE TRIGGER spreads_engine_cache AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON spreads
  FOR EACH STATEMENT EXECUTE FUNCTION notify_engine_cache_settings();
CREATE TRIGGER lot_settings_engine_cache AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON lot_settings
  FOR EACH STATEMENT EXECUTE FUNCTION notify_engine_cache_settings();

-- 2. Instrument names are unique whatever their case (EUR_USD and eur_usd would be one symbol to
--    a person and two to the feed); the admin page looks names up through this index.
CREATE UNIQUE INDEX instruments_name_lower_key ON instruments (lower(name));

-- 3. The orders of an instrument: the foreign key's check when an instrument is deleted (without
--    it, a scan of every order), the admin's 'has trades' check, and the trades list's
--    instrument filter (newest first).
CREATE INDEX orders_instrument_idx ON orders (instrument_id, id DESC);

-- Down Migration
DROP INDEX IF EXISTS orders_instrument_idx;
DROP INDEX IF EXISTS instruments_name_lower_key;
DROP TRIGGER IF EXISTS lot_settings_engine_cache ON lot_settings;
DROP TRIGGER IF EXISTS spreads_engine_cache ON spreads;
DROP FUNCTION IF EXISTS notify_engine_cache_settings();
