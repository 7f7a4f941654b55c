-- Up Migration
-- The trading formulas the locks need, once each, as IMMUTABLE SQL functions (inlined by the
-- planner): engine_place_order's free-margin check and engine_close_order's realised P/L call
-- them instead of spelling the arithmetic out. They are the SQL copies of
-- engine/src/domain/formulas.ts; engine/test/parity.test.ts runs one table of cases through
-- both and requires the same numeric.

-- Margin required = price × amount / leverage / conversion rate (the demo and scale seeds;
-- the engine computes it in TypeScript before the place statement).
CREATE FUNCTION margin_required(p_price numeric, p_amount numeric, p_leverage numeric, p_conversion_rate numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_price * p_amount / p_leverage / p_conversion_rate
$$;

-- "Sell uses the bid, buy the ask": the rate a position is marked and closed at.
CREATE FUNCTION order_mark_rate(p_type order_side, p_bid numeric, p_ask numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN p_type = 'buy' THEN p_ask ELSE p_bid END
$$;

-- Order P/L in the balance currency: buy (amount × (current − open) − spread) / exchange_rate,
-- sell (amount × (open − current) − spread) / exchange_rate. Unrounded: a close rounds it to 8.
CREATE FUNCTION order_pnl(p_type order_side, p_amount numeric, p_open numeric, p_current numeric, p_spread numeric,
                          p_exchange_rate numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (p_amount * CASE WHEN p_type = 'buy' THEN p_current - p_open ELSE p_open - p_current END - p_spread) / p_exchange_rate
$$;

-- An open position's P/L at a quote: the order P/L at its side's mark.
CREATE FUNCTION position_pnl(p_type order_side, p_amount numeric, p_open numeric, p_spread numeric, p_exchange_rate numeric,
                             p_bid numeric, p_ask numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT order_pnl(p_type, p_amount, p_open, order_mark_rate(p_type, p_bid, p_ask), p_spread, p_exchange_rate)
$$;

-- A position's P/L as a linear function of the quote, in the balance currency:
-- P/L = long_units × ask − short_units × bid − pnl_offset. Summed per instrument they give a
-- wallet's floating P/L at any quote (the dashboard's live figure).
CREATE FUNCTION order_exposure(p_type order_side, p_amount numeric, p_open numeric, p_spread numeric, p_exchange_rate numeric,
                               OUT long_units numeric, OUT short_units numeric, OUT pnl_offset numeric)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN p_type = 'buy' THEN p_amount / p_exchange_rate ELSE 0 END,
         CASE WHEN p_type = 'buy' THEN 0 ELSE p_amount / p_exchange_rate END,
         CASE WHEN p_type = 'buy' THEN (p_amount * p_open + p_spread) / p_exchange_rate
              ELSE (p_spread - p_amount * p_open) / p_exchange_rate END
$$;

-- Free margin = balance + floating P/L − used margin (README "Free margin").
CREATE FUNCTION free_margin(p_balance numeric, p_used_margin numeric, p_floating numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_balance + p_floating - p_used_margin
$$;

-- The place checks: margin over the balance, then margin over the free margin; null when it fits.
CREATE FUNCTION margin_refusal(p_required numeric, p_balance numeric, p_used_margin numeric, p_floating numeric) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN p_required > p_balance THEN 'insufficient_balance'
              WHEN p_required > free_margin(p_balance, p_used_margin, p_floating) THEN 'insufficient_free_margin' END
$$;

CREATE OR REPLACE FUNCTION engine_place_order(
  p_user_id bigint, p_balance_id bigint, p_instrument_id bigint, p_type order_side, p_kind instrument_category,
  p_amount numeric, p_lots numeric, p_open_rate numeric, p_exchange_rate numeric, p_spread numeric,
  p_profit numeric, p_loss numeric, p_margin numeric, p_leverage integer, p_idempotency_key text,
  p_price_ids bigint[], p_bids numeric[], p_asks numeric[], p_complete boolean,
  p_instrument text, p_balance_input bigint, p_fp text,
  OUT status text, OUT balance numeric, OUT missing bigint[], OUT o orders
) LANGUAGE plpgsql AS $$
DECLARE
  v_margin numeric;
  v_floating numeric;
BEGIN
  SELECT b.balance, b.margin INTO balance, v_margin FROM balances b WHERE b.id = p_balance_id FOR UPDATE;
  IF NOT FOUND THEN status := 'stale'; RETURN; END IF;
  IF p_fp IS DISTINCT FROM (SELECT c.fp FROM engine_place_context(p_user_id, p_balance_input, p_instrument) c) THEN
    status := 'stale'; RETURN;
  END IF;
  IF p_idempotency_key IS NOT NULL THEN
    SELECT * INTO o FROM orders x WHERE x.user_id = p_user_id AND x.idempotency_key = p_idempotency_key;
    IF FOUND THEN status := 'duplicate'; RETURN; END IF;
  END IF;
  SELECT coalesce(array_agg(DISTINCT x.instrument_id) FILTER (WHERE px.id IS NULL), '{}'),
         coalesce(sum(position_pnl(x.type, x.trade_amount, x.open_rate, x.spread, x.exchange_rate, px.bid, px.ask))
                  FILTER (WHERE px.id IS NOT NULL), 0)
    INTO missing, v_floating
    FROM orders x
    LEFT JOIN unnest(p_price_ids, p_bids, p_asks) AS px (id, bid, ask) ON px.id = x.instrument_id
   WHERE x.balance_id = p_balance_id AND x.close_time IS NULL AND x.deleted_at IS NULL;
  IF cardinality(missing) > 0 AND NOT p_complete THEN status := 'prices'; RETURN; END IF;
  missing := NULL;
  status := margin_refusal(p_margin, balance, v_margin, v_floating);
  IF status IS NOT NULL THEN RETURN; END IF;

  UPDATE balances SET margin = margin + p_margin, updated_at = now() WHERE id = p_balance_id;
  INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, lots, open_rate, exchange_rate,
                      spread, profit, loss, margin_used, leverage, idempotency_key)
  VALUES (p_user_id, p_balance_id, p_instrument_id, p_type, p_kind, p_amount, p_lots, p_open_rate, p_exchange_rate,
          p_spread, p_profit, p_loss, p_margin, p_leverage, p_idempotency_key)
  RETURNING * INTO o;
  status := 'ok';
END $$;

CREATE OR REPLACE FUNCTION engine_close_order(
  p_order_id bigint, p_user_id bigint, p_bid numeric, p_ask numeric, p_reason close_reason,
  p_actor_id bigint, p_ip text,
  OUT status text, OUT balance_after numeric, OUT o orders
) LANGUAGE plpgsql AS $$
DECLARE
  v_cur orders%ROWTYPE;
BEGIN
  PERFORM 1 FROM balances WHERE id = (SELECT x.balance_id FROM orders x WHERE x.id = p_order_id) FOR UPDATE;
  IF NOT FOUND THEN status := 'not_found'; RETURN; END IF;

  UPDATE orders x SET close_time = now(),
         close_rate = order_mark_rate(x.type, p_bid, p_ask),
         pro_loss = round(position_pnl(x.type, x.trade_amount, x.open_rate, x.spread, x.exchange_rate, p_bid, p_ask), 8),
         close_reason = p_reason, closed_by = p_actor_id, updated_at = now()
   WHERE x.id = p_order_id AND x.close_time IS NULL AND x.deleted_at IS NULL
     AND (p_user_id IS NULL OR x.user_id = p_user_id)
  RETURNING * INTO o;
  IF NOT FOUND THEN
    SELECT * INTO v_cur FROM orders x WHERE x.id = p_order_id;
    status := CASE WHEN v_cur.deleted_at IS NOT NULL OR (p_user_id IS NOT NULL AND v_cur.user_id <> p_user_id)
                   THEN 'not_found' ELSE 'already_closed' END;
    o := NULL;
    RETURN;
  END IF;

  UPDATE balances SET margin = greatest(margin - o.margin_used, 0), updated_at = now() WHERE id = o.balance_id;
  IF o.pro_loss <> 0 THEN
    SELECT l.balance_after INTO balance_after
      FROM post_ledger(o.balance_id, o.pro_loss, 'trade_pnl', 'order', o.id::text, p_actor_id, 'close ' || p_reason, true) l;
  END IF;
  IF p_reason = 'admin' THEN
    INSERT INTO audit_events (actor_id, action, target_kind, target_id, before, after, ip)
    VALUES (p_actor_id, 'order.force_close', 'order', o.id::text, jsonb_build_object('close_time', NULL),
            jsonb_build_object('close_rate', o.close_rate::text, 'pro_loss', o.pro_loss::text), p_ip::inet);
  END IF;
  status := 'ok';
END $$;

-- Down Migration
CREATE OR REPLACE FUNCTION engine_place_order(
  p_user_id bigint, p_balance_id bigint, p_instrument_id bigint, p_type order_side, p_kind instrument_category,
  p_amount numeric, p_lots numeric, p_open_rate numeric, p_exchange_rate numeric, p_spread numeric,
  p_profit numeric, p_loss numeric, p_margin numeric, p_leverage integer, p_idempotency_key text,
  p_price_ids bigint[], p_bids numeric[], p_asks numeric[], p_complete boolean,
  p_instrument text, p_balance_input bigint, p_fp text,
  OUT status text, OUT balance numeric, OUT missing bigint[], OUT o orders
) LANGUAGE plpgsql AS $$
DECLARE
  v_margin numeric;
  v_floating numeric;
BEGIN
  SELECT b.balance, b.margin INTO balance, v_margin FROM balances b WHERE b.id = p_balance_id FOR UPDATE;
  IF NOT FOUND THEN status := 'stale'; RETURN; END IF;
  IF p_fp IS DISTINCT FROM (SELECT c.fp FROM engine_place_context(p_user_id, p_balance_input, p_instrument) c) THEN
    status := 'stale'; RETURN;
  END IF;
  IF p_idempotency_key IS NOT NULL THEN
    SELECT * INTO o FROM orders x WHERE x.user_id = p_user_id AND x.idempotency_key = p_idempotency_key;
    IF FOUND THEN status := 'duplicate'; RETURN; END IF;
  END IF;
  IF p_margin > balance THEN status := 'insufficient_balance'; RETURN; END IF;

  SELECT coalesce(array_agg(DISTINCT x.instrument_id) FILTER (WHERE px.id IS NULL), '{}'),
         coalesce(sum((x.trade_amount * CASE WHEN x.type = 'buy' THEN px.ask - x.open_rate ELSE x.open_rate - px.bid END
                       - x.spread) / x.exchange_rate) FILTER (WHERE px.id IS NOT NULL), 0)
    INTO missing, v_floating
    FROM orders x
    LEFT JOIN unnest(p_price_ids, p_bids, p_asks) AS px (id, bid, ask) ON px.id = x.instrument_id
   WHERE x.balance_id = p_balance_id AND x.close_time IS NULL AND x.deleted_at IS NULL;
  IF cardinality(missing) > 0 AND NOT p_complete THEN status := 'prices'; RETURN; END IF;
  missing := NULL;
  IF p_margin > balance + v_floating - v_margin THEN status := 'insufficient_free_margin'; RETURN; END IF;

  UPDATE balances SET margin = margin + p_margin, updated_at = now() WHERE id = p_balance_id;
  INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, lots, open_rate, exchange_rate,
                      spread, profit, loss, margin_used, leverage, idempotency_key)
  VALUES (p_user_id, p_balance_id, p_instrument_id, p_type, p_kind, p_amount, p_lots, p_open_rate, p_exchange_rate,
          p_spread, p_profit, p_loss, p_margin, p_leverage, p_idempotency_key)
  RETURNING * INTO o;
  status := 'ok';
END $$;

CREATE OR REPLACE FUNCTION engine_close_order(
  p_order_id bigint, p_user_id bigint, p_bid numeric, p_ask numeric, p_reason close_reason,
  p_actor_id bigint, p_ip text,
  OUT status text, OUT balance_after numeric, OUT o orders
) LANGUAGE plpgsql AS $$
DECLARE
  v_cur orders%ROWTYPE;
BEGIN
  PERFORM 1 FROM balances WHERE id = (SELECT x.balance_id FROM orders x WHERE x.id = p_order_id) FOR UPDATE;
  IF NOT FOUND THEN status := 'not_found'; RETURN; END IF;

  UPDATE orders x SET close_time = now(),
         close_rate = CASE WHEN x.type = 'buy' THEN p_ask ELSE p_bid END,
         pro_loss = round((x.trade_amount * CASE WHEN x.type = 'buy' THEN p_ask - x.open_rate ELSE x.open_rate - p_bid END
                           - x.spread) / x.exchange_rate, 8),
         close_reason = p_reason, closed_by = p_actor_id, updated_at = now()
   WHERE x.id = p_order_id AND x.close_time IS NULL AND x.deleted_at IS NULL
     AND (p_user_id IS NULL OR x.user_id = p_user_id)
  RETURNING * INTO o;
  IF NOT FOUND THEN
    SELECT * INTO v_cur FROM orders x WHERE x.id = p_order_id;
    status := CASE WHEN v_cur.deleted_at IS NOT NULL OR (p_user_id IS NOT NULL AND v_cur.user_id <> p_user_id)
                   THEN 'not_found' ELSE 'already_closed' END;
    o := NULL;
    RETURN;
  END IF;

  UPDATE balances SET margin = greatest(margin - o.margin_used, 0), updated_at = now() WHERE id = o.balance_id;
  IF o.pro_loss <> 0 THEN
    SELECT l.balance_after INTO balance_after
      FROM post_ledger(o.balance_id, o.pro_loss, 'trade_pnl', 'order', o.id::text, p_actor_id, 'close ' || p_reason, true) l;
  END IF;
  IF p_reason = 'admin' THEN
    INSERT INTO audit_events (actor_id, action, target_kind, target_id, before, after, ip)
    VALUES (p_actor_id, 'order.force_close', 'order', o.id::text, jsonb_build_object('close_time', NULL),
            jsonb_build_object('close_rate', o.close_rate::text, 'pro_loss', o.pro_loss::text), p_ip::inet);
  END IF;
  status := 'ok';
END $$;

DROP FUNCTION IF EXISTS margin_refusal(numeric, numeric, numeric, numeric);
DROP FUNCTION IF EXISTS free_margin(numeric, numeric, numeric);
DROP FUNCTION IF EXISTS order_exposure(order_side, numeric, numeric, numeric, numeric);
DROP FUNCTION IF EXISTS position_pnl(order_side, numeric, numeric, numeric, numeric, numeric, numeric);
DROP FUNCTION IF EXISTS order_pnl(order_side, numeric, numeric, numeric, numeric, numeric);
DROP FUNCTION IF EXISTS order_mark_rate(order_side, numeric, numeric);
DROP FUNCTION IF EXISTS margin_required(numeric, numeric, numeric, numeric);
