-- Up Migration
-- What the engine caches follows staff changes without a restart: a change that matters to it
-- NOTIFYs the channel engine_cache (the engine LISTENs, as it does to balance_changed) with
-- { kind: 'user' | 'plan' | 'instrument', id, op }.
--   user        a user's pricing plan changed (stop-out thresholds of their open positions)
--   plan        a plan's leverage or stop-out values changed, or the plan was deleted
--   instrument  an instrument was added, deleted, or its name, currency, category, tradable
--               flag, leverage or digits changed (not the last quote the engine stores)
CREATE FUNCTION notify_engine_cache() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_kind text := CASE TG_TABLE_NAME WHEN 'users' THEN 'user' WHEN 'pricing_plans' THEN 'plan' ELSE 'instrument' END;
  v_id bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END;
BEGIN
  PERFORM pg_notify('engine_cache', json_build_object('kind', v_kind, 'id', v_id, 'op', lower(TG_OP))::text);
  RETURN NULL;
END $$;

CREATE TRIGGER users_engine_cache AFTER UPDATE OF pricing_plan_id ON users
  FOR EACH ROW WHEN (OLD.pricing_plan_id IS DISTINCT FROM NEW.pricing_plan_id) EXECUTE FUNCTION notify_engine_cache();

CREATE TRIGGER pricing_plans_engine_cache AFTER UPDATE ON pricing_plans
  FOR EACH ROW WHEN (
    (OLD.forex_leverage, OLD.commodity_leverage, OLD.index_leverage, OLD.stock_leverage, OLD.crypto_leverage,
     OLD.forex_stopout, OLD.commodity_stopout, OLD.index_stopout, OLD.stock_stopout, OLD.crypto_stopout)
    IS DISTINCT FROM
    (NEW.forex_leverage, NEW.commodity_leverage, NEW.index_leverage, NEW.stock_leverage, NEW.crypto_leverage,
     NEW.forex_stopout, NEW.commodity_stopout, NEW.index_stopout, NEW.stock_stopout, NEW.crypto_stopout))
  EXECUTE FUNCTION notify_engine_cache();
CREATE TRIGGER pricing_plans_engine_cache_delete AFTER DELETE ON pricing_plans
  FOR EACH ROW EXECUTE FUNCTION notify_engine_cache();

CREATE TRIGGER instruments_engine_cache AFTER INSERT OR DELETE ON instruments
  FOR EACH ROW EXECUTE FUNCTION notify_engine_cache();
CREATE TRIGGER instruments_engine_cache_update AFTER UPDATE ON instruments
  FOR EACH ROW WHEN (
    (OLD.name, OLD.base, OLD.quote, OLD.category, OLD.tradable, OLD.leverage, OLD.digits)
    IS DISTINCT FROM (NEW.name, NEW.base, NEW.quote, NEW.category, NEW.tradable, NEW.leverage, NEW.digits))
  EXECUTE FUNCTION notify_engine_cache();

-- Down Migration
DROP TRIGGER IF EXISTS instruments_engine_cache_update ON instruments;
DROP TRIGGER IF EXISTS instruments_engine_cache ON instruments;
DROP TRIGGER IF EXISTS pricing_plans_engine_cache_delete ON pricing_plans;
DROP TRIGGER IF EXISTS pricing_plans_engine_cache ON pricing_plans;
DROP TRIGGER IF EXISTS users_engine_cache ON users;
DROP FUNCTION IF EXISTS notify_engine_cache();
