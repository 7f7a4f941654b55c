-- Up Migration
-- The admin dashboard's figures (/admin, docs: web/app/modules/dashboard), kept by triggers so a
-- view reads a few hundred small rows instead of every deposit, withdrawal and order:
--
-- admin_daily_totals: per UTC day and metric,
--   'deposit'    approved deposits (by created_at): n, amount = Σ amount, fee = Σ fee
--   'withdrawal' approved withdrawals (by created_at): n, amount = Σ amount, fee = Σ fee
--   'trade'      orders opened (by created_at), not deleted: n, per category
--   'closed'     orders closed (by close_time), deleted or not (their P/L was posted to the
--                ledger and stays there): n, amount = Σ pro_loss (the customers' realised P/L,
--                spread cost included), fee = Σ spread / exchange_rate (that spread cost)
--   'customer'   customers (role 3, not deleted) by sign-up day: n
-- each with the wallet's mode and currency ('' where none applies). Order rows are spread over
-- 8 shards (balance_id % 8) so that concurrent order commands seldom wait for the same row.
--
-- admin_open_exposure: open, not deleted orders per instrument, side, wallet mode and currency:
--   n, units = Σ trade_amount, units_xr = Σ trade_amount / exchange_rate,
--   notional_xr = Σ trade_amount × open_rate / exchange_rate, spread_xr = Σ spread / exchange_rate.
-- These are sums of the exposure's terms (engine/src/domain/formulas.ts `exposure`), not a
-- formula: the page hands them to that module, which computes the P/L.
--
-- Every change is applied as (new contribution − old contribution). Orders, written one row per
-- engine command, by a PL/pgSQL row trigger that does only the upserts the change needs; deposits,
-- withdrawals and users (few writes, some in bulk) by statement-level triggers over the transition
-- tables on insert and delete (a bulk insert is one upsert, made in key order) and a row trigger on
-- updates of a column that counts.

CREATE TABLE admin_daily_totals (
  metric   text NOT NULL CHECK (metric IN ('deposit', 'withdrawal', 'trade', 'closed', 'customer')),
  day      date NOT NULL,
  mode     text NOT NULL DEFAULT '',
  currency text NOT NULL DEFAULT '',
  category text NOT NULL DEFAULT '',
  shard    smallint NOT NULL DEFAULT 0,
  n        bigint NOT NULL DEFAULT 0,
  amount   numeric NOT NULL DEFAULT 0,
  fee      numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (metric, day, mode, currency, category, shard)
);

CREATE TABLE admin_open_exposure (
  instrument_id bigint NOT NULL,
  side          order_side NOT NULL,
  mode          text NOT NULL,
  currency      text NOT NULL,
  shard         smallint NOT NULL DEFAULT 0,
  n             bigint NOT NULL DEFAULT 0,
  units         numeric NOT NULL DEFAULT 0,
  units_xr      numeric NOT NULL DEFAULT 0,
  notional_xr   numeric NOT NULL DEFAULT 0,
  spread_xr     numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (instrument_id, side, mode, currency, shard)
);

CREATE FUNCTION admin_utc_day(t timestamptz) RETURNS date LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT (t AT TIME ZONE 'UTC')::date $$;

-- ---------------------------------------------------------------- applying a change

CREATE FUNCTION admin_totals_upsert(p_rows admin_daily_totals[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO admin_daily_totals AS t (metric, day, mode, currency, category, shard, n, amount, fee)
  SELECT r.metric, r.day, r.mode, r.currency, r.category, r.shard, sum(r.n), sum(r.amount), sum(r.fee)
    FROM unnest(p_rows) r
   GROUP BY r.metric, r.day, r.mode, r.currency, r.category, r.shard
  HAVING sum(r.n) <> 0 OR sum(r.amount) <> 0 OR sum(r.fee) <> 0
   ORDER BY r.metric, r.day, r.mode, r.currency, r.category, r.shard
  ON CONFLICT (metric, day, mode, currency, category, shard)
  DO UPDATE SET n = t.n + excluded.n, amount = t.amount + excluded.amount, fee = t.fee + excluded.fee
$$;

-- deposits and withdrawals: approved ones count
CREATE FUNCTION admin_deposits_apply(p_old deposits[], p_new deposits[]) RETURNS void LANGUAGE sql AS $$
  SELECT admin_totals_upsert(coalesce(array_agg(ROW('deposit', admin_utc_day(x.created_at), b.mode::text, b.currency::text, '', 0,
                                                     x.s, x.s * x.amount, x.s * x.fee)::admin_daily_totals), '{}'))
    FROM (SELECT -1 AS s, o.balance_id, o.created_at, o.amount, o.fee FROM unnest(p_old) o WHERE o.status = 'approved'
          UNION ALL
          SELECT 1, o.balance_id, o.created_at, o.amount, o.fee FROM unnest(p_new) o WHERE o.status = 'approved') x
    JOIN balances b ON b.id = x.balance_id
$$;

CREATE FUNCTION admin_withdrawals_apply(p_old withdrawals[], p_new withdrawals[]) RETURNS void LANGUAGE sql AS $$
  SELECT admin_totals_upsert(coalesce(array_agg(ROW('withdrawal', admin_utc_day(x.created_at), b.mode::text, b.currency::text, '', 0,
                                                     x.s, x.s * x.amount, x.s * x.fee)::admin_daily_totals), '{}'))
    FROM (SELECT -1 AS s, o.balance_id, o.created_at, o.amount, o.fee FROM unnest(p_old) o WHERE o.status = 'approved'
          UNION ALL
          SELECT 1, o.balance_id, o.created_at, o.amount, o.fee FROM unnest(p_new) o WHERE o.status = 'approved') x
    JOIN balances b ON b.id = x.balance_id
$$;

CREATE FUNCTION admin_users_apply(p_old users[], p_new users[]) RETURNS void LANGUAGE sql AS $$
  SELECT admin_totals_upsert(coalesce(array_agg(ROW('customer', admin_utc_day(x.created_at), '', '', '', 0, x.s, 0, 0)::admin_daily_totals), '{}'))
    FROM (SELECT -1 AS s, o.created_at FROM unnest(p_old) o WHERE o.role_id = 3 AND o.deleted_at IS NULL
          UNION ALL
          SELECT 1, o.created_at FROM unnest(p_new) o WHERE o.role_id = 3 AND o.deleted_at IS NULL) x
$$;

-- the changed orders with their wallet's mode and currency, signed: −1 the old row, +1 the new
CREATE FUNCTION admin_orders_delta(p_old orders[], p_new orders[]) RETURNS TABLE (
  s int, instrument_id bigint, type order_side, kind instrument_category, shard smallint, mode text, currency text,
  created_at timestamptz, close_time timestamptz, deleted_at timestamptz, trade_amount numeric, open_rate numeric,
  exchange_rate numeric, spread numeric, pro_loss numeric
) LANGUAGE sql STABLE AS $$
  SELECT x.s, x.instrument_id, x.type, x.kind, (x.balance_id % 8)::smallint, b.mode::text, b.currency::text,
         x.created_at, x.close_time, x.deleted_at, x.trade_amount, x.open_rate, x.exchange_rate, x.spread, x.pro_loss
    FROM (SELECT -1 AS s, o.* FROM unnest(p_old) o UNION ALL SELECT 1, o.* FROM unnest(p_new) o) x
    JOIN balances b ON b.id = x.balance_id
$$;

CREATE FUNCTION admin_orders_apply(p_old orders[], p_new orders[]) RETURNS void LANGUAGE sql AS $$
  SELECT admin_totals_upsert(coalesce(array_agg(q.r), '{}')) FROM (
    SELECT ROW('trade', admin_utc_day(d.created_at), d.mode, d.currency, d.kind::text, d.shard, d.s, 0, 0)::admin_daily_totals AS r
      FROM admin_orders_delta(p_old, p_new) d WHERE d.deleted_at IS NULL
    UNION ALL
    SELECT ROW('closed', admin_utc_day(d.close_time), d.mode, d.currency, '', d.shard, d.s, d.s * d.pro_loss,
               d.s * (d.spread / d.exchange_rate))::admin_daily_totals
      FROM admin_orders_delta(p_old, p_new) d WHERE d.close_time IS NOT NULL) q;

  INSERT INTO admin_open_exposure AS t (instrument_id, side, mode, currency, shard, n, units, units_xr, notional_xr, spread_xr)
  SELECT d.instrument_id, d.type, d.mode, d.currency, d.shard, sum(d.s), sum(d.s * d.trade_amount),
         sum(d.s * (d.trade_amount / d.exchange_rate)), sum(d.s * (d.trade_amount * d.open_rate / d.exchange_rate)),
         sum(d.s * (d.spread / d.exchange_rate))
    FROM admin_orders_delta(p_old, p_new) d
   WHERE d.close_time IS NULL AND d.deleted_at IS NULL
   GROUP BY d.instrument_id, d.type, d.mode, d.currency, d.shard
  HAVING sum(d.s) <> 0 OR sum(d.s * d.trade_amount) <> 0 OR sum(d.s * (d.spread / d.exchange_rate)) <> 0
          OR sum(d.s * (d.trade_amount * d.open_rate / d.exchange_rate)) <> 0
   ORDER BY d.instrument_id, d.type, d.mode, d.currency, d.shard
  ON CONFLICT (instrument_id, side, mode, currency, shard)
  DO UPDATE SET n = t.n + excluded.n, units = t.units + excluded.units, units_xr = t.units_xr + excluded.units_xr,
                notional_xr = t.notional_xr + excluded.notional_xr, spread_xr = t.spread_xr + excluded.spread_xr;
$$;

-- ---------------------------------------------------------------- orders: the engine's hot path
-- One order command writes one row: a row trigger in PL/pgSQL (its statements planned once per
-- connection) does only the upserts the change needs, e.g. a close: the 'closed' row and the
-- exposure row, never the unchanged 'trade' row.
CREATE FUNCTION admin_order_part(p_part text, o orders, s int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_mode text;
  v_cur text;
  v_shard smallint := (o.balance_id % 8)::smallint;
BEGIN
  IF p_part = 'trade' AND o.deleted_at IS NOT NULL THEN RETURN; END IF;
  IF p_part = 'closed' AND o.close_time IS NULL THEN RETURN; END IF;
  IF p_part = 'exposure' AND (o.close_time IS NOT NULL OR o.deleted_at IS NOT NULL) THEN RETURN; END IF;
  SELECT b.mode::text, b.currency::text INTO v_mode, v_cur FROM balances b WHERE b.id = o.balance_id;
  IF p_part = 'trade' THEN
    INSERT INTO admin_daily_totals AS t (metric, day, mode, currency, category, shard, n)
    VALUES ('trade', admin_utc_day(o.created_at), v_mode, v_cur, o.kind::text, v_shard, s)
    ON CONFLICT (metric, day, mode, currency, category, shard) DO UPDATE SET n = t.n + excluded.n;
  ELSIF p_part = 'closed' THEN
    INSERT INTO admin_daily_totals AS t (metric, day, mode, currency, category, shard, n, amount, fee)
    VALUES ('closed', admin_utc_day(o.close_time), v_mode, v_cur, '', v_shard, s, s * o.pro_loss, s * (o.spread / o.exchange_rate))
    ON CONFLICT (metric, day, mode, currency, category, shard)
    DO UPDATE SET n = t.n + excluded.n, amount = t.amount + excluded.amount, fee = t.fee + excluded.fee;
  ELSE
    INSERT INTO admin_open_exposure AS t (instrument_id, side, mode, currency, shard, n, units, units_xr, notional_xr, spread_xr)
    VALUES (o.instrument_id, o.type, v_mode, v_cur, v_shard, s, s * o.trade_amount, s * (o.trade_amount / o.exchange_rate),
            s * (o.trade_amount * o.open_rate / o.exchange_rate), s * (o.spread / o.exchange_rate))
    ON CONFLICT (instrument_id, side, mode, currency, shard)
    DO UPDATE SET n = t.n + excluded.n, units = t.units + excluded.units, units_xr = t.units_xr + excluded.units_xr,
                  notional_xr = t.notional_xr + excluded.notional_xr, spread_xr = t.spread_xr + excluded.spread_xr;
  END IF;
END $$;

CREATE FUNCTION admin_orders_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM admin_order_part('trade', NEW, 1);
    PERFORM admin_order_part('closed', NEW, 1);
    PERFORM admin_order_part('exposure', NEW, 1);
    RETURN NULL;
  END IF;
  -- an update: each part moves only when what it counts changed
  IF (OLD.created_at, OLD.kind, OLD.balance_id, OLD.deleted_at IS NULL) IS DISTINCT FROM (NEW.created_at, NEW.kind, NEW.balance_id, NEW.deleted_at IS NULL) THEN
    PERFORM admin_order_part('trade', OLD, -1);
    PERFORM admin_order_part('trade', NEW, 1);
  END IF;
  IF (OLD.close_time, OLD.pro_loss, OLD.spread, OLD.exchange_rate, OLD.balance_id) IS DISTINCT FROM (NEW.close_time, NEW.pro_loss, NEW.spread, NEW.exchange_rate, NEW.balance_id) THEN
    PERFORM admin_order_part('closed', OLD, -1);
    PERFORM admin_order_part('closed', NEW, 1);
  END IF;
  IF (OLD.close_time IS NULL, OLD.deleted_at IS NULL, OLD.trade_amount, OLD.open_rate, OLD.spread, OLD.exchange_rate, OLD.type, OLD.instrument_id, OLD.balance_id)
     IS DISTINCT FROM (NEW.close_time IS NULL, NEW.deleted_at IS NULL, NEW.trade_amount, NEW.open_rate, NEW.spread, NEW.exchange_rate, NEW.type, NEW.instrument_id, NEW.balance_id) THEN
    PERFORM admin_order_part('exposure', OLD, -1);
    PERFORM admin_order_part('exposure', NEW, 1);
  END IF;
  RETURN NULL;
END $$;

-- ---------------------------------------------------------------- triggers

CREATE FUNCTION admin_totals_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'orders' THEN
    PERFORM admin_orders_apply((SELECT coalesce(array_agg(o::orders), '{}') FROM admin_old o), '{}');
  ELSIF TG_TABLE_NAME = 'deposits' THEN
    IF TG_OP = 'INSERT' THEN PERFORM admin_deposits_apply('{}', (SELECT coalesce(array_agg(n::deposits), '{}') FROM admin_new n));
    ELSE PERFORM admin_deposits_apply((SELECT coalesce(array_agg(o::deposits), '{}') FROM admin_old o), '{}'); END IF;
  ELSIF TG_TABLE_NAME = 'withdrawals' THEN
    IF TG_OP = 'INSERT' THEN PERFORM admin_withdrawals_apply('{}', (SELECT coalesce(array_agg(n::withdrawals), '{}') FROM admin_new n));
    ELSE PERFORM admin_withdrawals_apply((SELECT coalesce(array_agg(o::withdrawals), '{}') FROM admin_old o), '{}'); END IF;
  ELSIF TG_TABLE_NAME = 'users' THEN
    IF TG_OP = 'INSERT' THEN PERFORM admin_users_apply('{}', (SELECT coalesce(array_agg(n::users), '{}') FROM admin_new n));
    ELSE PERFORM admin_users_apply((SELECT coalesce(array_agg(o::users), '{}') FROM admin_old o), '{}'); END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION admin_totals_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'deposits' THEN PERFORM admin_deposits_apply(ARRAY[OLD::deposits], ARRAY[NEW::deposits]);
  ELSIF TG_TABLE_NAME = 'withdrawals' THEN PERFORM admin_withdrawals_apply(ARRAY[OLD::withdrawals], ARRAY[NEW::withdrawals]);
  ELSIF TG_TABLE_NAME = 'users' THEN PERFORM admin_users_apply(ARRAY[OLD::users], ARRAY[NEW::users]);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER admin_totals_ins AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION admin_orders_row();
CREATE TRIGGER admin_totals_del AFTER DELETE ON orders REFERENCING OLD TABLE AS admin_old
  FOR EACH STATEMENT EXECUTE FUNCTION admin_totals_stmt();
CREATE TRIGGER admin_totals_upd AFTER UPDATE ON orders FOR EACH ROW
  WHEN ((OLD.created_at, OLD.close_time, OLD.deleted_at, OLD.pro_loss, OLD.spread, OLD.exchange_rate, OLD.trade_amount,
         OLD.open_rate, OLD.type, OLD.kind, OLD.instrument_id, OLD.balance_id)
        IS DISTINCT FROM
        (NEW.created_at, NEW.close_time, NEW.deleted_at, NEW.pro_loss, NEW.spread, NEW.exchange_rate, NEW.trade_amount,
         NEW.open_rate, NEW.type, NEW.kind, NEW.instrument_id, NEW.balance_id))
  EXECUTE FUNCTION admin_orders_row();

CREATE TRIGGER admin_totals_ins AFTER INSERT ON deposits REFERENCING NEW TABLE AS admin_new
  FOR EACH STATEMENT EXECUTE FUNCTION admin_totals_stmt();
CREATE TRIGGER admin_totals_del AFTER DELETE ON deposits REFERENCING OLD TABLE AS admin_old
  FOR EACH STATEMENT EXECUTE FUNCTION admin_totals_stmt();
CREATE TRIGGER admin_totals_upd AFTER UPDATE ON deposits FOR EACH ROW
  WHEN ((OLD.status, OLD.created_at, OLD.amount, OLD.fee, OLD.balance_id) IS DISTINCT FROM (NEW.status, NEW.created_at, NEW.amount, NEW.fee, NEW.balance_id))
  EXECUTE FUNCTION admin_totals_row();

CREATE TRIGGER admin_totals_ins AFTER INSERT ON withdrawals REFERENCING NEW TABLE AS admin_new
  FOR EACH STATEMENT EXECUTE FUNCTION admin_totals_stmt();
CREATE TRIGGER admin_totals_del AFTER DELETE ON withdrawals REFERENCING OLD TABLE AS admin_old
  FOR EACH STATEMENT EXECUTE FUNCTION admin_totals_stmt();
CREATE TRIGGER admin_totals_upd AFTER UPDATE ON withdrawals FOR EACH ROW
  WHEN ((OLD.status, OLD.created_at, OLD.amount, OLD.fee, OLD.balance_id) IS DISTINCT FROM (NEW.status, NEW.created_at, NEW.amount, NEW.fee, NEW.balance_id))
  EXECUTE FUNCTION admin_totals_row();

CREATE TRIGGER admin_totals_ins AFTER INSERT ON users REFERENCING NEW TABLE AS admin_new
  FOR EACH STATEMENT EXECUTE FUNCTION admin_totals_stmt();
CREATE TRIGGER admin_totals_del AFTER DELETE ON users REFERENCING OLD TABLE AS admin_old
  FOR EACH STATEMENT EXECUTE FUNCTION admin_totals_stmt();
CREATE TRIGGER admin_totals_upd AFTER UPDATE ON users FOR EACH ROW
  WHEN ((OLD.role_id, OLD.deleted_at, OLD.created_at) IS DISTINCT FROM (NEW.role_id, NEW.deleted_at, NEW.created_at))
  EXECUTE FUNCTION admin_totals_row();

-- ---------------------------------------------------------------- what is there already

SELECT admin_deposits_apply('{}', coalesce((SELECT array_agg(d) FROM deposits d WHERE d.status = 'approved'), '{}'));
SELECT admin_withdrawals_apply('{}', coalesce((SELECT array_agg(w) FROM withdrawals w WHERE w.status = 'approved'), '{}'));
SELECT admin_users_apply('{}', coalesce((SELECT array_agg(u) FROM users u WHERE u.role_id = 3 AND u.deleted_at IS NULL), '{}'));
SELECT admin_orders_apply('{}', coalesce((SELECT array_agg(o) FROM orders o), '{}'));

-- Down Migration
DROP TRIGGER IF EXISTS admin_totals_ins ON orders;
DROP TRIGGER IF EXISTS admin_totals_del ON orders;
DROP TRIGGER IF EXISTS admin_totals_upd ON orders;
DROP TRIGGER IF EXISTS admin_totals_ins ON deposits;
DROP TRIGGER IF EXISTS admin_totals_del ON deposits;
DROP TRIGGER IF EXISTS admin_totals_upd ON deposits;
DROP TRIGGER IF EXISTS admin_totals_ins ON withdrawals;
DROP TRIGGER IF EXISTS admin_totals_del ON withdrawals;
DROP TRIGGER IF EXISTS admin_totals_upd ON withdrawals;
DROP TRIGGER IF EXISTS admin_totals_ins ON users;
DROP TRIGGER IF EXISTS admin_totals_del ON users;
DROP TRIGGER IF EXISTS admin_totals_upd ON users;
DROP FUNCTION IF EXISTS admin_totals_row();
DROP FUNCTION IF EXISTS admin_orders_row();
DROP FUNCTION IF EXISTS admin_order_part(text, orders, int);
DROP FUNCTION IF EXISTS admin_totals_stmt();
DROP FUNCTION IF EXISTS admin_orders_apply(orders[], orders[]);
DROP FUNCTION IF EXISTS admin_orders_delta(orders[], orders[]);
DROP FUNCTION IF EXISTS admin_users_apply(users[], users[]);
DROP FUNCTION IF EXISTS admin_withdrawals_apply(withdrawals[], withdrawals[]);
DROP FUNCTION IF EXISTS admin_deposits_apply(deposits[], deposits[]);
DROP FUNCTION IF EXISTS admin_totals_upsert(admin_daily_totals[]);
DROP FUNCTION IF EXISTS admin_utc_day(timestamptz);
DROP TABLE IF EXISTS admin_open_exposure;
DROP TABLE IF EXISTS admin_daily_totals;
