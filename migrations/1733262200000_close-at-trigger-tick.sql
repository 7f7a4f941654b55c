-- Up Migration
-- A triggered close settles at the tick that crossed its level and records it (issue 22 §5;
-- docs/architecture.md "Prices and freshness"). The engine used to price an automatic close at
-- the book's quote of the moment its statement ran: after a restart a burst of closes queued
-- behind the executor, and a buy with stop-loss 128.668 was closed 'sl' at 128.979031, a later
-- tick back above the level. The engine now passes each close the tick its trigger fired on.
--
-- 1. The tick is kept with the close: trigger_bid, trigger_ask (the prices of the order's
--    instrument the trigger compared, the close rate being their side mark) and trigger_at (the
--    feed time of the tick that triggered it). Null for manual and staff closes, and for
--    automatic closes made before this.
ALTER TABLE orders
  ADD COLUMN trigger_bid numeric(24, 10),
  ADD COLUMN trigger_ask numeric(24, 10),
  ADD COLUMN trigger_at  timestamptz;

-- 2. No path can write a take-profit or stop-loss close that does not reach its level: when an
--    order is closed (close_time set from null) with reason 'sl' or 'tp' and that level set, its
--    close rate (the side's mark: a buy's ask, a sell's bid) must be at or beyond the level —
--    a buy's stop-loss close_rate <= loss, a sell's >= loss; a buy's take-profit >= profit, a
--    sell's <= profit. A gap past the level closes at the crossing tick's price (worse, allowed);
--    there is no other slippage. Stop-out and zero equity are not single levels in SQL (the
--    engine's float trigger on margin and equity) and are not checked here. A close refused
--    this way changes nothing; the engine hands the position back to its evaluator.
--    Later staff edits of a closed trade (close rate, levels) are not closes and are not checked.
CREATE FUNCTION orders_close_reaches_level() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.close_reason = 'sl' AND NEW.loss > 0
      AND CASE WHEN NEW.type = 'buy' THEN NEW.close_rate > NEW.loss ELSE NEW.close_rate < NEW.loss END)
     OR (NEW.close_reason = 'tp' AND NEW.profit > 0
      AND CASE WHEN NEW.type = 'buy' THEN NEW.close_rate < NEW.profit ELSE NEW.close_rate > NEW.profit END) THEN
    RAISE EXCEPTION 'order %: a % % close at % does not reach its level %', NEW.id, NEW.type, NEW.close_reason, NEW.close_rate,
      CASE WHEN NEW.close_reason = 'sl' THEN NEW.loss ELSE NEW.profit END
      USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER orders_close_reaches_level BEFORE UPDATE OF close_time ON orders FOR EACH ROW
  WHEN (OLD.close_time IS NULL AND NEW.close_time IS NOT NULL AND NEW.close_reason IN ('sl', 'tp'))
  EXECUTE FUNCTION orders_close_reaches_level();

-- 3. One automatic close at its trigger tick (the engine's closeOrder with a tick): the same
--    conditional close as engine_close_order at the tick's bid and ask, the tick recorded, and
--    with p_stamp (a trigger found replaying missed ticks) the close time set to the tick's time.
--    engine_close_order_at (the replay-only form) stays for a process of the previous version.
CREATE FUNCTION engine_close_order_tick(
  p_order_id bigint, p_bid numeric, p_ask numeric, p_reason close_reason, p_at timestamptz, p_stamp boolean,
  OUT status text, OUT balance_after numeric, OUT o orders
) LANGUAGE plpgsql AS $$
DECLARE
  v record;
BEGIN
  SELECT f.status, f.balance_after, f.o INTO v
    FROM engine_close_order(p_order_id, NULL, p_bid, p_ask, p_reason, NULL, NULL) f;
  status := v.status; balance_after := v.balance_after; o := v.o;
  IF status = 'ok' THEN
    UPDATE orders x SET trigger_bid = p_bid, trigger_ask = p_ask, trigger_at = p_at,
           close_time = CASE WHEN p_stamp THEN p_at ELSE x.close_time END
     WHERE x.id = p_order_id RETURNING * INTO o;
  END IF;
END $$;

-- 4. engine_close_orders takes each order's trigger tick time (p_ats, in step with the ids; the
--    bids and asks are already per order): the ticks are recorded in the closing UPDATE itself.
--    Otherwise unchanged (migration engine-close-orders); without p_ats nothing is recorded.
DROP FUNCTION engine_close_orders(bigint[], numeric[], numeric[], close_reason[], bigint, text);

CREATE FUNCTION engine_close_orders(
  p_ids bigint[], p_bids numeric[], p_asks numeric[], p_reasons close_reason[],
  p_actor_id bigint DEFAULT NULL, p_ip text DEFAULT NULL, p_ats timestamptz[] DEFAULT NULL
) RETURNS TABLE (order_id bigint, status text, balance_after numeric, o orders)
LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(p_ids) IS DISTINCT FROM cardinality(p_bids) OR cardinality(p_ids) IS DISTINCT FROM cardinality(p_asks)
     OR cardinality(p_ids) IS DISTINCT FROM cardinality(p_reasons)
     OR (p_ats IS NOT NULL AND cardinality(p_ids) IS DISTINCT FROM cardinality(p_ats)) THEN
    RAISE EXCEPTION 'engine_close_orders: arrays of different lengths' USING ERRCODE = '22023';
  END IF;
  IF (SELECT count(DISTINCT i) <> count(*) FROM unnest(p_ids) i) THEN
    RAISE EXCEPTION 'engine_close_orders: an order id is repeated' USING ERRCODE = '22023';
  END IF;

  -- every balance first, in id order (LockRows runs above the sort)
  PERFORM 1 FROM balances b
   WHERE b.id IN (SELECT x.balance_id FROM orders x WHERE x.id = ANY (p_ids))
   ORDER BY b.id FOR UPDATE;

  -- a new statement, a new snapshot: everything committed by the lock's previous holders is seen
  PERFORM set_config('broker.ledger_posting', 'on', true);
  RETURN QUERY
  WITH req AS (
    SELECT r.id, r.bid, r.ask, r.reason, r.at, r.seq
      FROM unnest(p_ids, p_bids, p_asks, p_reasons, coalesce(p_ats, '{}')) WITH ORDINALITY AS r (id, bid, ask, reason, at, seq)
  ), closed AS (
    UPDATE orders x SET close_time = now(),
           close_rate = order_mark_rate(x.type, r.bid, r.ask),
           pro_loss = round(position_pnl(x.type, x.trade_amount, x.open_rate, x.spread, x.exchange_rate, r.bid, r.ask), 8),
           close_reason = r.reason, closed_by = p_actor_id, updated_at = now(),
           trigger_bid = CASE WHEN r.at IS NULL THEN x.trigger_bid ELSE r.bid END,
           trigger_ask = CASE WHEN r.at IS NULL THEN x.trigger_ask ELSE r.ask END,
           trigger_at = coalesce(r.at, x.trigger_at)
      FROM req r
     WHERE x.id = r.id AND x.close_time IS NULL AND x.deleted_at IS NULL
    RETURNING x AS orow, x.id, x.balance_id, x.margin_used, x.pro_loss, r.seq, r.reason
  ), run AS (
    -- S_k per balance, over the orders with a posting, in array order
    SELECT c.id, c.balance_id, c.pro_loss AS amount, c.seq, c.reason, b.user_id,
           (b.balance + sum(c.pro_loss) OVER w)::numeric(24, 8) AS s
      FROM closed c JOIN balances b ON b.id = c.balance_id
     WHERE c.pro_loss <> 0
    WINDOW w AS (PARTITION BY c.balance_id ORDER BY c.seq)
  ), posts AS (
    SELECT r.*,
           least(0, min(r.s) OVER (PARTITION BY r.balance_id ORDER BY r.seq)) AS m,
           least(0, coalesce(min(r.s) OVER (PARTITION BY r.balance_id ORDER BY r.seq
                                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)) AS m_prev,
           row_number() OVER (PARTITION BY r.balance_id ORDER BY r.seq DESC) AS from_last
      FROM run r
  ), entries AS (
    INSERT INTO ledger_entries (balance_id, kind, amount, balance_after, ref_kind, ref_id, actor_id, memo)
    SELECT e.balance_id, e.kind, e.amount, e.balance_after, 'order', e.id::text, p_actor_id, e.memo
      FROM (SELECT p.balance_id, p.seq, 0 AS n, 'trade_pnl'::ledger_kind AS kind, p.amount, p.s - p.m_prev AS balance_after,
                   p.id, 'close ' || p.reason AS memo
              FROM posts p
            UNION ALL
            SELECT p.balance_id, p.seq, 1, 'write_off', p.m_prev - p.m, 0, p.id, 'negative balance protection'
              FROM posts p WHERE p.m < p.m_prev) e
     ORDER BY e.balance_id, e.seq, e.n
    RETURNING 1
  ), released AS (
    SELECT c.balance_id, sum(c.margin_used) AS margin FROM closed c GROUP BY c.balance_id
  ), finals AS (
    SELECT p.balance_id, p.user_id, p.s - p.m AS balance FROM posts p WHERE p.from_last = 1
  ), moved AS (
    UPDATE balances b SET margin = greatest(b.margin - rl.margin, 0),
           balance = coalesce(f.balance, b.balance), updated_at = now()
      FROM released rl LEFT JOIN finals f ON f.balance_id = rl.balance_id
     WHERE b.id = rl.balance_id
    RETURNING b.id
  ), notified AS (
    -- as post_ledger does: one per posting, with the balance after it, in posting order
    SELECT pg_notify('balance_changed', json_build_object('balanceId', n.balance_id, 'userId', n.user_id,
                                                          'balance', n.balance::text)::text)
      FROM (SELECT p.balance_id, p.user_id, (p.s - p.m)::numeric(24, 8) AS balance FROM posts p ORDER BY p.balance_id, p.seq) n
  ), audited AS (
    INSERT INTO audit_events (actor_id, action, target_kind, target_id, before, after, ip)
    SELECT p_actor_id, 'order.force_close', 'order', c.id::text, jsonb_build_object('close_time', NULL),
           jsonb_build_object('close_rate', (c.orow).close_rate::text, 'pro_loss', c.pro_loss::text), p_ip::inet
      FROM closed c WHERE c.reason = 'admin'
     ORDER BY c.seq
    RETURNING 1
  )
  SELECT r.id,
         CASE WHEN c.id IS NOT NULL THEN 'ok'
              WHEN cur.id IS NULL OR cur.deleted_at IS NOT NULL THEN 'not_found'
              ELSE 'already_closed' END,
         (p.s - p.m)::numeric(24, 8)::numeric,
         c.orow
    FROM req r
    LEFT JOIN closed c ON c.id = r.id
    LEFT JOIN posts p ON p.id = r.id
    LEFT JOIN orders cur ON cur.id = r.id AND c.id IS NULL
   WHERE (SELECT count(*) FROM entries) >= 0 AND (SELECT count(*) FROM moved) >= 0
     AND (SELECT count(*) FROM notified) >= 0 AND (SELECT count(*) FROM audited) >= 0
   ORDER BY r.seq;
  PERFORM set_config('broker.ledger_posting', '', true);
END $$;

-- Down Migration
DROP FUNCTION engine_close_orders(bigint[], numeric[], numeric[], close_reason[], bigint, text, timestamptz[]);

CREATE FUNCTION engine_close_orders(
  p_ids bigint[], p_bids numeric[], p_asks numeric[], p_reasons close_reason[],
  p_actor_id bigint DEFAULT NULL, p_ip text DEFAULT NULL
) RETURNS TABLE (order_id bigint, status text, balance_after numeric, o orders)
LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(p_ids) IS DISTINCT FROM cardinality(p_bids) OR cardinality(p_ids) IS DISTINCT FROM cardinality(p_asks)
     OR cardinality(p_ids) IS DISTINCT FROM cardinality(p_reasons) THEN
    RAISE EXCEPTION 'engine_close_orders: arrays of different lengths' USING ERRCODE = '22023';
  END IF;
  IF (SELECT count(DISTINCT i) <> count(*) FROM unnest(p_ids) i) THEN
    RAISE EXCEPTION 'engine_close_orders: an order id is repeated' USING ERRCODE = '22023';
  END IF;

  -- every balance first, in id order (LockRows runs above the sort)
  PERFORM 1 FROM balances b
   WHERE b.id IN (SELECT x.balance_id FROM orders x WHERE x.id = ANY (p_ids))
   ORDER BY b.id FOR UPDATE;

  -- a new statement, a new snapshot: everything committed by the lock's previous holders is seen
  PERFORM set_config('broker.ledger_posting', 'on', true);
  RETURN QUERY
  WITH req AS (
    SELECT r.id, r.bid, r.ask, r.reason, r.seq
      FROM unnest(p_ids, p_bids, p_asks, p_reasons) WITH ORDINALITY AS r (id, bid, ask, reason, seq)
  ), closed AS (
    UPDATE orders x SET close_time = now(),
           close_rate = order_mark_rate(x.type, r.bid, r.ask),
           pro_loss = round(position_pnl(x.type, x.trade_amount, x.open_rate, x.spread, x.exchange_rate, r.bid, r.ask), 8),
           close_reason = r.reason, closed_by = p_actor_id, updated_at = now()
      FROM req r
     WHERE x.id = r.id AND x.close_time IS NULL AND x.deleted_at IS NULL
    RETURNING x AS orow, x.id, x.balance_id, x.margin_used, x.pro_loss, r.seq, r.reason
  ), run AS (
    -- S_k per balance, over the orders with a posting, in array order
    SELECT c.id, c.balance_id, c.pro_loss AS amount, c.seq, c.reason, b.user_id,
           (b.balance + sum(c.pro_loss) OVER w)::numeric(24, 8) AS s
      FROM closed c JOIN balances b ON b.id = c.balance_id
     WHERE c.pro_loss <> 0
    WINDOW w AS (PARTITION BY c.balance_id ORDER BY c.seq)
  ), posts AS (
    SELECT r.*,
           least(0, min(r.s) OVER (PARTITION BY r.balance_id ORDER BY r.seq)) AS m,
           least(0, coalesce(min(r.s) OVER (PARTITION BY r.balance_id ORDER BY r.seq
                                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)) AS m_prev,
           row_number() OVER (PARTITION BY r.balance_id ORDER BY r.seq DESC) AS from_last
      FROM run r
  ), entries AS (
    INSERT INTO ledger_entries (balance_id, kind, amount, balance_after, ref_kind, ref_id, actor_id, memo)
    SELECT e.balance_id, e.kind, e.amount, e.balance_after, 'order', e.id::text, p_actor_id, e.memo
      FROM (SELECT p.balance_id, p.seq, 0 AS n, 'trade_pnl'::ledger_kind AS kind, p.amount, p.s - p.m_prev AS balance_after,
                   p.id, 'close ' || p.reason AS memo
              FROM posts p
            UNION ALL
            SELECT p.balance_id, p.seq, 1, 'write_off', p.m_prev - p.m, 0, p.id, 'negative balance protection'
              FROM posts p WHERE p.m < p.m_prev) e
     ORDER BY e.balance_id, e.seq, e.n
    RETURNING 1
  ), released AS (
    SELECT c.balance_id, sum(c.margin_used) AS margin FROM closed c GROUP BY c.balance_id
  ), finals AS (
    SELECT p.balance_id, p.user_id, p.s - p.m AS balance FROM posts p WHERE p.from_last = 1
  ), moved AS (
    UPDATE balances b SET margin = greatest(b.margin - rl.margin, 0),
           balance = coalesce(f.balance, b.balance), updated_at = now()
      FROM released rl LEFT JOIN finals f ON f.balance_id = rl.balance_id
     WHERE b.id = rl.balance_id
    RETURNING b.id
  ), notified AS (
    -- as post_ledger does: one per posting, with the balance after it, in posting order
    SELECT pg_notify('balance_changed', json_build_object('balanceId', n.balance_id, 'userId', n.user_id,
                                                          'balance', n.balance::text)::text)
      FROM (SELECT p.balance_id, p.user_id, (p.s - p.m)::numeric(24, 8) AS balance FROM posts p ORDER BY p.balance_id, p.seq) n
  ), audited AS (
    INSERT INTO audit_events (actor_id, action, target_kind, target_id, before, after, ip)
    SELECT p_actor_id, 'order.force_close', 'order', c.id::text, jsonb_build_object('close_time', NULL),
           jsonb_build_object('close_rate', (c.orow).close_rate::text, 'pro_loss', c.pro_loss::text), p_ip::inet
      FROM closed c WHERE c.reason = 'admin'
     ORDER BY c.seq
    RETURNING 1
  )
  SELECT r.id,
         CASE WHEN c.id IS NOT NULL THEN 'ok'
              WHEN cur.id IS NULL OR cur.deleted_at IS NOT NULL THEN 'not_found'
              ELSE 'already_closed' END,
         (p.s - p.m)::numeric(24, 8)::numeric,
         c.orow
    FROM req r
    LEFT JOIN closed c ON c.id = r.id
    LEFT JOIN posts p ON p.id = r.id
    LEFT JOIN orders cur ON cur.id = r.id AND c.id IS NULL
   WHERE (SELECT count(*) FROM entries) >= 0 AND (SELECT count(*) FROM moved) >= 0
     AND (SELECT count(*) FROM notified) >= 0 AND (SELECT count(*) FROM audited) >= 0
   ORDER BY r.seq;
  PERFORM set_config('broker.ledger_posting', '', true);
END $$;

DROP FUNCTION engine_close_order_tick(bigint, numeric, numeric, close_reason, timestamptz, boolean);
DROP TRIGGER orders_close_reaches_level ON orders;
DROP FUNCTION orders_close_reaches_level();
ALTER TABLE orders DROP COLUMN trigger_at, DROP COLUMN trigger_ask, DROP COLUMN trigger_bid;
