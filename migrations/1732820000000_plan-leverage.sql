-- Up Migration
-- A user's pricing plan applies to their open positions at once (docs/specs.md#pricing-plans):
-- each open position takes the leverage a new position would get (the plan's for the position's
-- category, else the instrument's, else 1:1, as engine/src/domain/pricing.ts effectiveLeverage)
-- and its margin becomes margin_required(open rate, amount, leverage, exchange rate) rounded as
-- the engine rounds a place (8 decimals, half up). One statement per call, after every balance of
-- the user is locked (in id order): each balance's used margin moves by the sum of its positions'
-- differences, so balances.margin stays the sum of its open positions' margin. The engine learns
-- of it from the engine_cache notification of the users row (users_engine_cache): refreshStopouts
-- re-reads each open position's stop-out and margin. Called by the web's plan subscription in the
-- transaction that changes users.pricing_plan_id, after that change.
CREATE FUNCTION apply_plan_leverage(p_user_id bigint)
RETURNS TABLE (balance_id bigint, positions integer, margin_delta numeric)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM balances b WHERE b.user_id = p_user_id ORDER BY b.id FOR UPDATE;
  -- a fresh snapshot after the locks: every order committed by a command that held one is seen
  RETURN QUERY
  WITH target AS (
    SELECT o.id, o.margin_used AS old_margin,
           CASE WHEN lev.plan > 0 THEN lev.plan WHEN i.leverage > 0 THEN i.leverage ELSE 1 END AS leverage
      FROM orders o
      JOIN users u ON u.id = o.user_id
      JOIN instruments i ON i.id = o.instrument_id
      LEFT JOIN pricing_plans p ON p.id = u.pricing_plan_id
     CROSS JOIN LATERAL (SELECT CASE o.kind WHEN 'forex' THEN p.forex_leverage WHEN 'commodity' THEN p.commodity_leverage
                                  WHEN 'index' THEN p.index_leverage WHEN 'stock' THEN p.stock_leverage
                                  ELSE p.crypto_leverage END AS plan) lev
     WHERE o.user_id = p_user_id AND o.close_time IS NULL AND o.deleted_at IS NULL
  ), changed AS (
    UPDATE orders o
       SET leverage = t.leverage,
           margin_used = round(margin_required(o.open_rate, o.trade_amount, t.leverage, o.exchange_rate), 8),
           updated_at = now()
      FROM target t
     WHERE o.id = t.id AND o.leverage <> t.leverage
    RETURNING o.balance_id, o.margin_used - t.old_margin AS delta
  ), per_balance AS (
    SELECT c.balance_id, count(*)::int AS n, sum(c.delta) AS delta FROM changed c GROUP BY c.balance_id
  )
  UPDATE balances b SET margin = greatest(b.margin + pb.delta, 0), updated_at = now()
    FROM per_balance pb
   WHERE b.id = pb.balance_id
  RETURNING b.id, pb.n, pb.delta;
END $$;

-- Down Migration
DROP FUNCTION IF EXISTS apply_plan_leverage(bigint);
