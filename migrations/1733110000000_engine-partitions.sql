-- Up Migration
-- Partition failover (docs/architecture.md "Processes"): which core process owns which balance
-- partition, and the last tick stream id it has processed for it. The lease itself is a
-- PostgreSQL advisory lock held on the owner's session (it dies with the process); this row is
-- what a new owner reads to replay the ticks it missed, and what /v1/health shows.
-- `cluster` (ENGINE_CLUSTER) keeps independent engine groups on one database apart.
CREATE TABLE engine_partitions (
  cluster      text        NOT NULL DEFAULT 'default',
  partition    integer     NOT NULL CHECK (partition >= 0),
  owner        text,
  last_tick_id text,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (cluster, partition)
);

-- A trigger found while replaying missed ticks closes at the crossing tick's price AND time:
-- the same conditional close (engine_close_order: once, whoever comes second changes nothing),
-- then the close time set to the tick's time in the same transaction.
CREATE FUNCTION engine_close_order_at(
  p_order_id bigint, p_bid numeric, p_ask numeric, p_reason close_reason, p_at timestamptz,
  OUT status text, OUT balance_after numeric, OUT o orders
) LANGUAGE plpgsql AS $$
DECLARE
  v record;
BEGIN
  SELECT f.status, f.balance_after, f.o INTO v
    FROM engine_close_order(p_order_id, NULL, p_bid, p_ask, p_reason, NULL, NULL) f;
  status := v.status; balance_after := v.balance_after; o := v.o;
  IF status = 'ok' THEN
    UPDATE orders x SET close_time = p_at WHERE x.id = p_order_id RETURNING * INTO o;
  END IF;
END $$;

-- Down Migration
DROP FUNCTION engine_close_order_at(bigint, numeric, numeric, close_reason, timestamptz);
DROP TABLE engine_partitions;
