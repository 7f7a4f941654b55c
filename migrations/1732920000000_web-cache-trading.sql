-- Up Migration
-- Web processes also keep the instruments and the spreads that every dashboard
-- reads (web/app/utils/live-cache.server.ts): a change to any of them NOTIFYs web_cache with the
-- table's name, as 1732610000000_web-cache-notify.sql does for settings and translations.
-- The engine saves each instrument's last quote (bids, asks) every few seconds: that alone is not a
-- change of the instrument (the web's copy holds no price), so an UPDATE notifies only when some
-- other column changed. Row-level for that test; PostgreSQL sends one notification per transaction
-- for the same channel and payload however many rows change.
CREATE TRIGGER instruments_web_cache AFTER INSERT OR DELETE OR TRUNCATE ON instruments
  FOR EACH STATEMENT EXECUTE FUNCTION notify_web_cache();
CREATE TRIGGER instruments_web_cache_update AFTER UPDATE ON instruments
  FOR EACH ROW WHEN ((to_jsonb(OLD) - 'bids' - 'asks') IS DISTINCT FROM (to_jsonb(NEW) - 'bids' - 'asks'))
  EXECUTE FUNCTION notify_web_cache();
CREATE TRIGGER spreads_web_cache AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON spreads
  FOR EACH STATEMENT EXECUTE FUNCTION notify_web_cache();

-- Down Migration
DROP TRIGGER IF EXISTS spreads_web_cache ON spreads;
DROP TRIGGER IF EXISTS instruments_web_cache_update ON instruments;
DROP TRIGGER IF EXISTS instruments_web_cache ON instruments;
