-- Up Migration
-- Partial close and trailing stops (issue 25 §2, §3; docs/specs.md "Orders").
--
-- 1. A partial close cuts a closed part off an open position: the position keeps its id, levels
--    and the rest of its lots, amount, spread and margin; the part is a NEW orders row, closed as
--    a full close would be, with position_id naming the position it was cut from. Statements,
--    histories, the CSV and the reports read closed orders, so each partial close is its own row.
ALTER TABLE orders
  ADD COLUMN position_id bigint REFERENCES orders (id),
  -- 2. A trailing stop: the distance (price units) the engine keeps the stop-loss behind the
  --    price as it improves; null: no trailing. The stop-loss itself is orders.loss.
  ADD COLUMN trailing_distance numeric(24, 10) CHECK (trailing_distance > 0);
CREATE INDEX orders_position_idx ON orders (position_id) WHERE position_id IS NOT NULL;

-- The smallest trailing distance per instrument (price units); null: 10 pips of the instrument
-- (engine domain pipSize).
ALTER TABLE instruments ADD COLUMN trailing_min_distance numeric(24, 10) CHECK (trailing_min_distance > 0);

-- 3. The trailing moves, for the staff trade view: written by the engine's throttled flush (at most
--    one row per position per flush, about one a second), with the stop-loss before and after.
CREATE TABLE order_level_moves (
  id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id  bigint NOT NULL REFERENCES orders (id),
  loss_from numeric(24, 10),
  loss_to   numeric(24, 10) NOT NULL,
  moved_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX order_level_moves_order_idx ON order_level_moves (order_id, id DESC);

-- 4. A part's share of a position's spread cost or margin: total × part / whole, to 8 decimals
--    (the columns' scale). The SQL copy of engine/src/domain/formulas.ts partShare
--    (engine/test/parity.test.ts). The rest keeps total − share, so nothing is lost to rounding.
CREATE FUNCTION part_share(p_total numeric, p_part numeric, p_whole numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT round(p_total * p_part / p_whole, 8)
$$;

-- 5. One partial close, one autocommit statement under the balance lock (as engine_close_order):
--    p_amount units (p_lots lots when the position is in lots) close at the side's mark of p_bid /
--    p_ask. The part's P/L goes through post_ledger and its margin is released; a staff close
--    ('admin') is audited. Refused without a write: 'not_found', 'already_closed', 'too_large'
--    (the part is not less than the position), 'remainder' (the lots left would be below p_min_lots).
CREATE FUNCTION engine_partial_close(
  p_order_id bigint, p_user_id bigint, p_amount numeric, p_lots numeric, p_min_lots numeric,
  p_bid numeric, p_ask numeric, p_reason close_reason, p_actor_id bigint, p_ip text,
  OUT status text, OUT balance_after numeric, OUT o orders, OUT rest orders
) LANGUAGE plpgsql AS $$
DECLARE
  v_cur orders%ROWTYPE;
  v_spread numeric;
  v_margin numeric;
BEGIN
  PERFORM 1 FROM balances WHERE id = (SELECT x.balance_id FROM orders x WHERE x.id = p_order_id) FOR UPDATE;
  IF NOT FOUND THEN status := 'not_found'; RETURN; END IF;
  SELECT * INTO v_cur FROM orders x WHERE x.id = p_order_id FOR UPDATE;
  IF v_cur.deleted_at IS NOT NULL OR (p_user_id IS NOT NULL AND v_cur.user_id <> p_user_id) THEN
    status := 'not_found'; RETURN;
  END IF;
  IF v_cur.close_time IS NOT NULL THEN status := 'already_closed'; RETURN; END IF;
  IF p_amount <= 0 OR p_amount >= v_cur.trade_amount
     OR (v_cur.lots IS NOT NULL AND (p_lots IS NULL OR p_lots >= v_cur.lots)) THEN
    status := 'too_large'; RETURN;
  END IF;
  IF v_cur.lots IS NOT NULL AND v_cur.lots - p_lots < p_min_lots THEN status := 'remainder'; RETURN; END IF;

  v_spread := part_share(v_cur.spread, p_amount, v_cur.trade_amount);
  v_margin := part_share(v_cur.margin_used, p_amount, v_cur.trade_amount);
  INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, lots, open_rate, close_rate, exchange_rate,
                      spread, profit, loss, pro_loss, margin_used, leverage, close_time, close_reason, closed_by,
                      created_at, position_id)
  VALUES (v_cur.user_id, v_cur.balance_id, v_cur.instrument_id, v_cur.type, v_cur.kind, p_amount,
          CASE WHEN v_cur.lots IS NULL THEN NULL ELSE p_lots END, v_cur.open_rate, order_mark_rate(v_cur.type, p_bid, p_ask),
          v_cur.exchange_rate, v_spread, v_cur.profit, v_cur.loss,
          round(position_pnl(v_cur.type, p_amount, v_cur.open_rate, v_spread, v_cur.exchange_rate, p_bid, p_ask), 8),
          v_margin, v_cur.leverage, now(), p_reason, p_actor_id, v_cur.created_at, v_cur.id)
  RETURNING * INTO o;
  UPDATE orders x SET trade_amount = x.trade_amount - p_amount,
         lots = CASE WHEN x.lots IS NULL THEN NULL ELSE x.lots - p_lots END,
         spread = x.spread - v_spread, margin_used = x.margin_used - v_margin, updated_at = now()
   WHERE x.id = p_order_id
  RETURNING * INTO rest;

  UPDATE balances SET margin = greatest(margin - v_margin, 0), updated_at = now() WHERE id = o.balance_id;
  IF o.pro_loss <> 0 THEN
    SELECT l.balance_after INTO balance_after
      FROM post_ledger(o.balance_id, o.pro_loss, 'trade_pnl', 'order', o.id::text, p_actor_id,
                       'partial close ' || p_reason || ' of ' || v_cur.id, true) l;
  END IF;
  IF p_reason = 'admin' THEN
    INSERT INTO audit_events (actor_id, action, target_kind, target_id, before, after, ip)
    VALUES (p_actor_id, 'order.partial_close', 'order', v_cur.id::text,
            jsonb_build_object('trade_amount', v_cur.trade_amount::text, 'lots', v_cur.lots::text),
            jsonb_build_object('trade_amount', rest.trade_amount::text, 'lots', rest.lots::text, 'part_id', o.id::text,
                               'close_rate', o.close_rate::text, 'pro_loss', o.pro_loss::text), p_ip::inet);
  END IF;
  status := 'ok';
END $$;

-- 6. The trailing flush: the stop-losses moved since the last flush, in one statement, and one
--    history row each. Only an open position whose trailing is still on takes the move, and only
--    forward (a buy's stop up, a sell's down): a slow flush never puts back a stop the customer or
--    a later flush moved on. Answers the orders that moved, with their user (to tell them live).
CREATE FUNCTION engine_trail_stops(p_ids bigint[], p_losses numeric[]) RETURNS TABLE (order_id bigint, user_id bigint, loss numeric)
LANGUAGE sql AS $$
  -- the stops before (the statement's snapshot), by the primary key: no self-join for the planner to get wrong
  WITH m AS (
    SELECT * FROM unnest(p_ids, p_losses) AS m (id, loss)
  ), old AS (
    SELECT o.id, o.loss FROM orders o WHERE o.id = ANY (p_ids)
  ), moved AS (
    UPDATE orders x SET loss = m.loss, updated_at = now()
      FROM m
     WHERE x.id = m.id AND x.close_time IS NULL AND x.deleted_at IS NULL
       AND x.trailing_distance IS NOT NULL
       AND (x.loss IS NULL OR CASE WHEN x.type = 'buy' THEN m.loss > x.loss ELSE m.loss < x.loss END)
    RETURNING x.id, x.user_id, x.loss AS loss_to
  ), hist AS (
    INSERT INTO order_level_moves (order_id, loss_from, loss_to)
    SELECT mv.id, o.loss, mv.loss_to FROM moved mv JOIN old o ON o.id = mv.id
    RETURNING order_id, loss_to
  )
  SELECT h.order_id, mv.user_id, h.loss_to FROM hist h JOIN moved mv ON mv.id = h.order_id
$$;

-- Down Migration
DROP FUNCTION engine_trail_stops(bigint[], numeric[]);
DROP FUNCTION engine_partial_close(bigint, bigint, numeric, numeric, numeric, numeric, numeric, close_reason, bigint, text);
DROP FUNCTION part_share(numeric, numeric, numeric);
DROP TABLE order_level_moves;
ALTER TABLE instruments DROP COLUMN trailing_min_distance;
DROP INDEX orders_position_idx;
ALTER TABLE orders DROP COLUMN trailing_distance, DROP COLUMN position_id;
