-- Up Migration
-- Pending orders (issue 25 §1; docs/specs.md#pending-orders): Buy/Sell Limit and Buy/Sell Stop,
-- kept in their own table, never as rows of `orders`: every query of the product reads an
-- `orders` row without close_time as an open position (margin, exposure, stop-out, lists), and a
-- pending order reserves nothing and is none of those. The engine holds the pending orders of
-- the partitions it owns in trigger heaps (engine/src/risk/pending.ts) and fills one on the
-- first fresh tick that reaches its price through engine_activate_pendings below: the pending
-- row's status change and the position's insert (engine_place_order, the market order's
-- margin checks under the balance lock) in one transaction, conditional on the row still being
-- pending, so an order is filled or cancelled exactly once whatever races (a customer's cancel,
-- a takeover's replay, two engines).

CREATE TYPE pending_order_type AS ENUM ('limit', 'stop');
CREATE TYPE pending_expiry AS ENUM ('gtc', 'day', 'at');
CREATE TYPE pending_status AS ENUM ('pending', 'filled', 'cancelled', 'expired');

-- The minimum distance of a pending order's price from the live price, per instrument, in price
-- units (0: anywhere on the correct side). Staff set it on the instrument form.
ALTER TABLE instruments ADD COLUMN pending_min_distance numeric(24, 10) NOT NULL DEFAULT 0 CHECK (pending_min_distance >= 0);

CREATE TABLE pending_orders (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id         bigint NOT NULL,
  balance_id      bigint NOT NULL,
  instrument_id   bigint NOT NULL REFERENCES instruments (id),
  type            order_side NOT NULL,
  order_type      pending_order_type NOT NULL,
  price           numeric(24, 10) NOT NULL CHECK (price > 0),
  trade_amount    numeric(24, 8) NOT NULL CHECK (trade_amount > 0),
  lots            numeric(20, 8) CHECK (lots > 0),
  profit          numeric(24, 10) CHECK (profit > 0),   -- take-profit rate of the position it becomes
  loss            numeric(24, 10) CHECK (loss > 0),     -- stop-loss rate
  expiry          pending_expiry NOT NULL DEFAULT 'gtc',
  expires_at      timestamptz,
  status          pending_status NOT NULL DEFAULT 'pending',
  order_id        bigint REFERENCES orders (id),        -- the position it became
  fill_rate       numeric(24, 10),
  -- fill rate − price for a buy, price − fill rate for a sell: > 0 worse than asked, < 0 better
  slippage        numeric(24, 10),
  trigger_bid     numeric(24, 10),                      -- the tick that filled or cancelled it
  trigger_ask     numeric(24, 10),
  trigger_at      timestamptz,
  cancel_reason   text,
  cancelled_by    bigint REFERENCES users (id),         -- staff who cancelled it (a customer's own cancel: their id)
  idempotency_key text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  done_at         timestamptz,                          -- when it stopped being pending
  CHECK ((expiry = 'gtc') = (expires_at IS NULL)),
  CHECK ((status = 'filled') = (order_id IS NOT NULL)),
  CHECK ((status = 'pending') = (done_at IS NULL)),
  FOREIGN KEY (balance_id, user_id) REFERENCES balances (id, user_id)
);
CREATE UNIQUE INDEX pending_orders_idempotency_key ON pending_orders (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
-- a balance's pending orders, newest first (the positions area, the engine's per-balance reads)
CREATE INDEX pending_orders_balance_idx ON pending_orders (balance_id, id DESC);
-- the engine's load at start and takeover: every live one (a small partial index)
CREATE INDEX pending_orders_live_idx ON pending_orders (balance_id) WHERE status = 'pending';
-- staff list filtered by status, newest first; and by instrument
CREATE INDEX pending_orders_status_idx ON pending_orders (status, id DESC);
CREATE INDEX pending_orders_instrument_idx ON pending_orders (instrument_id, id DESC);
CREATE UNIQUE INDEX pending_orders_order_id ON pending_orders (order_id) WHERE order_id IS NOT NULL;

-- Ends a pending order (customer or staff cancel, expiry, a refusal at activation): balance
-- locked first, then the row, conditional on it still being pending. p_user_id: the customer's
-- own order only. Staff cancels (p_audit) write an audit_events row. Answers 'ok', 'not_found'
-- or 'done' (already filled, cancelled or expired: nothing changed).
CREATE FUNCTION engine_end_pending(
  p_id bigint, p_user_id bigint, p_status pending_status, p_reason text, p_actor_id bigint, p_audit boolean, p_ip text,
  p_bid numeric, p_ask numeric, p_at timestamptz,
  OUT status text, OUT p pending_orders
) LANGUAGE plpgsql AS $$
DECLARE
  v_balance bigint;
BEGIN
  SELECT x.balance_id INTO v_balance FROM pending_orders x WHERE x.id = p_id AND (p_user_id IS NULL OR x.user_id = p_user_id);
  IF NOT FOUND THEN status := 'not_found'; RETURN; END IF;
  PERFORM 1 FROM balances b WHERE b.id = v_balance FOR UPDATE;
  SELECT * INTO p FROM pending_orders x WHERE x.id = p_id FOR UPDATE;
  IF p.status <> 'pending' THEN status := 'done'; RETURN; END IF;
  UPDATE pending_orders x SET status = p_status, cancel_reason = p_reason, cancelled_by = p_actor_id,
         trigger_bid = p_bid, trigger_ask = p_ask, trigger_at = p_at, done_at = now(), updated_at = now()
   WHERE x.id = p_id RETURNING * INTO p;
  IF p_audit THEN
    INSERT INTO audit_events (actor_id, action, target_kind, target_id, before, after, ip)
    VALUES (p_actor_id, 'pending.cancel', 'pending_order', p_id::text, jsonb_build_object('status', 'pending'),
            jsonb_build_object('status', p.status, 'reason', p_reason), p_ip::inet);
  END IF;
  status := 'ok';
END $$;

-- Fills pending orders at their trigger ticks, one statement for a batch (a flash move crossing
-- thousands of prices): every balance of the batch locked in id order first (never deadlocks
-- with another batch or a single command), then each order in input order, only if still
-- pending, as engine_place_order places a market order at its fill rate (a limit: the tick's
-- side at its price or better; a stop: the tick's side, the slippage recorded): the place
-- context's fingerprint re-checked under the lock ('stale' changes nothing for that order: the
-- engine reads the context again and retries it), then margin_refusal(margin, balance, used
-- margin, floating P/L of the balance's open positions at the prices passed in; an instrument
-- without a price counts 0, as engine_place_order with p_complete), the margin reserved and the
-- position inserted. The figures of a balance are read once and carried from one of its fills
-- to the next (its used margin plus each fill's margin, its floating P/L plus each new
-- position's position_pnl at the same prices): the same numbers engine_place_order would read
-- back fill after fill, without a statement per fill for them; a balance's used margin is
-- written when the batch moves to another balance and at the end. A margin refusal cancels the
-- order with the refusal as its reason; an order whose expiry is not after its tick expires
-- instead. With p_stamps (found replaying missed ticks) the position's open time is its tick's.
CREATE FUNCTION engine_activate_pendings(
  p_ids bigint[], p_fill_rates numeric[], p_bids numeric[], p_asks numeric[], p_ats timestamptz[], p_stamps boolean[],
  p_kinds instrument_category[], p_spreads numeric[], p_exchange_rates numeric[], p_margins numeric[], p_leverages integer[],
  p_instruments text[], p_fps text[], p_price_ids bigint[], p_price_bids numeric[], p_price_asks numeric[]
) RETURNS TABLE (pending_id bigint, status text, balance numeric, o orders, p pending_orders)
LANGUAGE plpgsql AS $$
DECLARE
  n int := coalesce(cardinality(p_ids), 0);
  k int;
  j int;
  v pending_orders;
  v_rows pending_orders[];
  v_fresh boolean[];
  v_order_id bigint;
  v_cur bigint;           -- the balance whose figures are held
  v_balance numeric;
  v_used numeric;
  v_floating numeric;
  v_refusal text;
  r_status text[] := array_fill(NULL::text, ARRAY[n]);
  r_balance numeric[] := array_fill(NULL::numeric, ARRAY[n]);
  r_order bigint[] := array_fill(NULL::bigint, ARRAY[n]);
BEGIN
  -- balances in id order, then the orders in id order (a single command locks its balance, then its order)
  PERFORM 1 FROM balances b WHERE b.id IN (SELECT x.balance_id FROM pending_orders x WHERE x.id = ANY (p_ids))
   ORDER BY b.id FOR UPDATE;
  PERFORM 1 FROM pending_orders x WHERE x.id = ANY (p_ids) ORDER BY x.id FOR UPDATE;
  SELECT array_agg(x ORDER BY a.k) INTO v_rows
    FROM unnest(p_ids) WITH ORDINALITY AS a (id, k) LEFT JOIN pending_orders x ON x.id = a.id;
  -- the contexts' fingerprints, under the locks, in one statement
  SELECT array_agg(a.fp IS NOT DISTINCT FROM (SELECT c.fp FROM engine_place_context(x.user_id, x.balance_id, a.inst) c) ORDER BY a.k)
    INTO v_fresh
    FROM unnest(p_ids, p_fps, p_instruments) WITH ORDINALITY AS a (id, fp, inst, k)
    LEFT JOIN pending_orders x ON x.id = a.id;
  FOR k IN 1 .. n LOOP
    v := v_rows[k];
    IF v.id IS NULL THEN r_status[k] := 'not_found'; CONTINUE; END IF;
    IF v.status <> 'pending' THEN r_status[k] := 'done'; CONTINUE; END IF;
    -- its tick came after its expiry (a replay, a late timer): it expires, unfilled
    IF v.expires_at IS NOT NULL AND v.expires_at <= p_ats[k] THEN r_status[k] := 'expired'; CONTINUE; END IF;
    IF NOT v_fresh[k] THEN r_status[k] := 'stale'; CONTINUE; END IF;
    IF v_cur IS DISTINCT FROM v.balance_id THEN
      IF v_cur IS NOT NULL THEN UPDATE balances SET margin = v_used, updated_at = now() WHERE id = v_cur; END IF;
      v_cur := v.balance_id;
      SELECT b.balance, b.margin INTO v_balance, v_used FROM balances b WHERE b.id = v_cur;
      SELECT coalesce(sum(position_pnl(x.type, x.trade_amount, x.open_rate, x.spread, x.exchange_rate, px.bid, px.ask))
                      FILTER (WHERE px.id IS NOT NULL), 0)
        INTO v_floating
        FROM orders x
        LEFT JOIN unnest(p_price_ids, p_price_bids, p_price_asks) AS px (id, bid, ask) ON px.id = x.instrument_id
       WHERE x.balance_id = v_cur AND x.close_time IS NULL AND x.deleted_at IS NULL;
    END IF;
    r_balance[k] := v_balance;
    v_refusal := margin_refusal(p_margins[k], v_balance, v_used, v_floating);
    IF v_refusal IS NOT NULL THEN r_status[k] := v_refusal; CONTINUE; END IF;
    INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, lots, open_rate, exchange_rate,
                        spread, profit, loss, margin_used, leverage, created_at)
    VALUES (v.user_id, v.balance_id, v.instrument_id, v.type, p_kinds[k], v.trade_amount, v.lots, p_fill_rates[k], p_exchange_rates[k],
            p_spreads[k], v.profit, v.loss, p_margins[k], p_leverages[k], CASE WHEN p_stamps[k] THEN p_ats[k] ELSE now() END)
    RETURNING id INTO v_order_id;
    r_order[k] := v_order_id;
    r_status[k] := 'ok';
    v_used := v_used + p_margins[k];
    -- the new position's P/L at the prices passed (its instrument's is always among them)
    j := array_position(p_price_ids, v.instrument_id);
    IF j IS NOT NULL THEN
      v_floating := v_floating + position_pnl(v.type, v.trade_amount, p_fill_rates[k], p_spreads[k], p_exchange_rates[k], p_price_bids[j], p_price_asks[j]);
    END IF;
  END LOOP;
  IF v_cur IS NOT NULL THEN UPDATE balances SET margin = v_used, updated_at = now() WHERE id = v_cur; END IF;
  -- the orders' new states, one statement
  UPDATE pending_orders x
     SET status = CASE u.st WHEN 'ok' THEN 'filled' WHEN 'expired' THEN 'expired' ELSE 'cancelled' END::pending_status,
         order_id = u.oid,
         fill_rate = CASE WHEN u.st = 'ok' THEN u.rate END,
         slippage = CASE WHEN u.st <> 'ok' THEN NULL WHEN x.type = 'buy' THEN u.rate - x.price ELSE x.price - u.rate END,
         cancel_reason = CASE WHEN u.st = 'ok' THEN NULL ELSE u.st END,
         trigger_bid = CASE WHEN u.st = 'expired' THEN NULL ELSE u.bid END,
         trigger_ask = CASE WHEN u.st = 'expired' THEN NULL ELSE u.ask END,
         trigger_at = CASE WHEN u.st = 'expired' THEN NULL ELSE u.at END,
         done_at = now(), updated_at = now()
    FROM unnest(p_ids, r_status, r_order, p_fill_rates, p_bids, p_asks, p_ats) AS u (id, st, oid, rate, bid, ask, at)
   WHERE x.id = u.id AND u.st IN ('ok', 'expired', 'insufficient_balance', 'insufficient_free_margin');
  RETURN QUERY
    SELECT u.id, u.st, u.bal, ord, pnd
      FROM unnest(p_ids, r_status, r_balance, r_order) WITH ORDINALITY AS u (id, st, bal, oid, k)
      LEFT JOIN orders ord ON ord.id = u.oid
      LEFT JOIN pending_orders pnd ON pnd.id = u.id
     ORDER BY u.k;
END $$;

-- Down Migration
DROP FUNCTION IF EXISTS engine_activate_pendings(bigint[], numeric[], numeric[], numeric[], timestamptz[], boolean[],
  instrument_category[], numeric[], numeric[], numeric[], integer[], text[], text[], bigint[], numeric[], numeric[]);
DROP FUNCTION IF EXISTS engine_end_pending(bigint, bigint, pending_status, text, bigint, boolean, text, numeric, numeric, timestamptz);
DROP TABLE IF EXISTS pending_orders;
ALTER TABLE instruments DROP COLUMN IF EXISTS pending_min_distance;
DROP TYPE IF EXISTS pending_status;
DROP TYPE IF EXISTS pending_expiry;
DROP TYPE IF EXISTS pending_order_type;
