-- Up Migration
-- The engine's place and close as one autocommit statement each (one round trip). Both lock
-- the balance row first, as every command on a balance does; inside a VOLATILE plpgsql
-- function each statement takes a fresh snapshot under READ COMMITTED, so what is read after
-- the lock includes every order committed by the commands that held it before.

-- open positions of a balance, read by every place (the free-margin check) and by stop-out
CREATE INDEX orders_balance_open_idx ON orders (balance_id) WHERE close_time IS NULL AND deleted_at IS NULL;

-- Everything place's checks read, for a user, a balance (null: the user's active balance) and an
-- instrument, with a fingerprint of it. The engine keeps the context of recent places and
-- sends its fingerprint with the next place on the same key; engine_place_order recomputes it
-- under the balance lock and answers 'stale' when anything changed (a plan, a setting, KYC,
-- the instrument, the account), so a cached context is a hint, never a source of truth.
CREATE FUNCTION engine_place_context(p_user_id bigint, p_balance_id bigint, p_instrument text)
RETURNS TABLE (
  instrument_id bigint, name text, quote text, category instrument_category, tradable boolean, leverage integer,
  spread_setting numeric, lot_state lot_state, is_active boolean, deleted_at timestamptz, plan jsonb,
  kyc_trade text, kyc_ok boolean, balance_id bigint, balance_user_id bigint, currency text, fp text
) LANGUAGE sql STABLE AS $$
  SELECT c.id, c.name, c.quote, c.category, c.tradable, c.leverage, c.spread, c.lot_state, c.is_active, c.deleted_at,
         c.plan, c.kyc_trade, c.kyc_ok, c.balance_id, c.balance_user_id, c.currency, md5(row(c.id, c.quote, c.category, c.tradable, c.leverage, c.spread, c.lot_state, c.is_active,
                      c.deleted_at, c.plan_leverage, c.plan_stopout, c.kyc_trade, c.kyc_ok, c.balance_id,
                      c.balance_user_id, c.currency)::text)
    FROM (SELECT i.id, i.name, i.quote::text, i.category, i.tradable, i.leverage,
                 (SELECT value FROM spreads s WHERE s.category = i.category) AS spread,
                 (SELECT state FROM lot_settings l WHERE l.category = i.category) AS lot_state,
                 u.is_active, u.deleted_at, to_jsonb(p) AS plan,
                 (SELECT value->>'trade' FROM site_settings WHERE key = 'kyc') AS kyc_trade,
                 EXISTS (SELECT 1 FROM kyc_documents k WHERE k.user_id = u.id AND k.status = 'approved') AS kyc_ok,
                 b.id AS balance_id, b.user_id AS balance_user_id, b.currency::text,
                 CASE i.category WHEN 'forex' THEN p.forex_leverage WHEN 'commodity' THEN p.commodity_leverage
                   WHEN 'index' THEN p.index_leverage WHEN 'stock' THEN p.stock_leverage ELSE p.crypto_leverage END AS plan_leverage,
                 CASE i.category WHEN 'forex' THEN p.forex_stopout WHEN 'commodity' THEN p.commodity_stopout
                   WHEN 'index' THEN p.index_stopout WHEN 'stock' THEN p.stock_stopout ELSE p.crypto_stopout END AS plan_stopout
            FROM users u
            JOIN instruments i ON i.name = p_instrument
            JOIN balances b ON b.id = coalesce(p_balance_id, u.active_balance_id)
            LEFT JOIN pricing_plans p ON p.id = u.pricing_plan_id
           WHERE u.id = p_user_id) c
$$;

-- Place: the margin and free-margin checks in SQL numeric against the locked balance, with the
-- floating P/L of the balance's open positions at the live prices passed in (p_price_ids,
-- p_bids, p_asks). A position on an instrument without a passed price makes the answer
-- 'prices' with the ids in `missing` (nothing changed) unless p_complete, in which case it
-- counts 0 (no live price). p_fp is the fingerprint of the context the figures were computed
-- from (engine_place_context with p_balance_input): 'stale' when it no longer matches. A key
-- already used answers 'duplicate' with that order; a raced one raises unique_violation (23505).
CREATE FUNCTION engine_place_order(
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

-- Close at the given bid/ask (buy closes at the ask, sell at the bid): conditional on the
-- order being open (and the customer's own when p_user_id is set), so whoever comes second (a
-- retry, another engine) changes nothing and learns 'already_closed' or 'not_found'. Margin
-- released, realised P/L posted through post_ledger with the shortfall written off; a staff
-- close (reason admin) is audited.
CREATE FUNCTION engine_close_order(
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

-- Down Migration
DROP FUNCTION IF EXISTS engine_close_order(bigint, bigint, numeric, numeric, close_reason, bigint, text);
DROP FUNCTION IF EXISTS engine_place_order(bigint, bigint, bigint, order_side, instrument_category, numeric, numeric, numeric,
  numeric, numeric, numeric, numeric, numeric, integer, text, bigint[], numeric[], numeric[], boolean, text, bigint, text);
DROP FUNCTION IF EXISTS engine_place_context(bigint, bigint, text);
DROP INDEX IF EXISTS orders_balance_open_idx;
