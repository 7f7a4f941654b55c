-- Up Migration
-- Mass closes (a flash crash crosses thousands of stop-losses on one tick): many closes in one
-- statement instead of one engine_close_order each. The same close as engine_close_order, row
-- for row:
--  * every balance of the batch is locked first, in balance id order (as a single close or a
--    place locks its one balance first): two batches, or a batch and single commands, never
--    deadlock;
--  * each order closes only if it is still open (a racing manual close, a second evaluator or
--    a retry changes nothing and the order answers 'already_closed' / 'not_found');
--  * close rate and realised P/L through the same formula functions (order_mark_rate,
--    position_pnl, rounded to 8);
--  * margin released as greatest(margin − Σ margin_used, 0), which equals releasing one order
--    after the other;
--  * the ledger rows post_ledger would write closing the orders one by one in array order:
--    a 'trade_pnl' row per order with a non-zero P/L (ref 'order'/id, memo 'close <reason>'),
--    and where the balance would go below zero a 'write_off' of the shortfall ending it at 0.
--    One by one the balance follows X_k = max(X_{k−1} + a_k, 0); with S_k = X_0 + a_1 + … + a_k
--    and M_k = least(0, min S_1..S_k) that is X_k = S_k − M_k, the trade_pnl row's
--    balance_after is S_k − M_{k−1} and the write-off is M_{k−1} − M_k (window functions).
--    The (ref_kind, ref_id, kind) key still makes a posting happen at most once: a reference
--    posted before fails the whole statement, and the engine then closes that batch one by one
--    (engine_close_order → post_ledger's idempotency rules);
--  * the balance is set as post_ledger sets it (under broker.ledger_posting), and each posting
--    sends the balance_changed NOTIFY post_ledger would (the balance after it, in order);
--  * a staff close (reason admin) is audited as engine_close_order does.
-- Answers one row per requested id, in array order: status ('ok', 'already_closed',
-- 'not_found'), balance_after (the balance after this order's posting; null without one) and
-- the order row (null unless ok).
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

-- Down Migration
DROP FUNCTION IF EXISTS engine_close_orders(bigint[], numeric[], numeric[], close_reason[], bigint, text);
