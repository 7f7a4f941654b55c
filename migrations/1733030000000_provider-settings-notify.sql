-- Up Migration
-- The engine's feed follows the admin's data-provider settings without a restart: a change to an
-- api_settings row NOTIFYs engine_cache { kind: 'provider', key } and the engine's feed manager
-- (engine/src/feed/providers/manager.ts) reloads the settings and restarts the adapters whose
-- key or mode changed. The currency API's quota, which the engine itself writes back to its row
-- (value2 remaining, value3 monthly limit), notifies nothing.
CREATE FUNCTION notify_engine_cache_provider() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_key text := CASE WHEN TG_OP = 'DELETE' THEN OLD.key::text ELSE NEW.key::text END;
BEGIN
  PERFORM pg_notify('engine_cache', json_build_object('kind', 'provider', 'key', v_key, 'op', lower(TG_OP))::text);
  RETURN NULL;
END $$;

CREATE TRIGGER api_settings_engine_cache AFTER INSERT OR DELETE ON api_settings
  FOR EACH ROW EXECUTE FUNCTION notify_engine_cache_provider();
CREATE TRIGGER api_settings_engine_cache_update AFTER UPDATE ON api_settings
  FOR EACH ROW WHEN (
    CASE WHEN NEW.key = 'currencyAPI'
      THEN (OLD.key, OLD.value1, OLD.value4, OLD.value5) IS DISTINCT FROM (NEW.key, NEW.value1, NEW.value4, NEW.value5)
      ELSE (OLD.key, OLD.value1, OLD.value2, OLD.value3, OLD.value4, OLD.value5) IS DISTINCT FROM (NEW.key, NEW.value1, NEW.value2, NEW.value3, NEW.value4, NEW.value5)
    END)
  EXECUTE FUNCTION notify_engine_cache_provider();

-- Down Migration
DROP TRIGGER IF EXISTS api_settings_engine_cache_update ON api_settings;
DROP TRIGGER IF EXISTS api_settings_engine_cache ON api_settings;
DROP FUNCTION IF EXISTS notify_engine_cache_provider();
