-- Up Migration
-- A declined withdrawal's "balance" in its history is the wallet once the hold came back (the
-- 'withdrawal_refund' ledger entry), not the balance during the hold: rows declined before the
-- decline wrote it take it from their refund's entry.
UPDATE withdrawals w
   SET balance_after = l.balance_after
  FROM ledger_entries l
 WHERE w.status = 'declined' AND l.kind = 'withdrawal_refund' AND l.ref_kind = 'withdrawal' AND l.ref_id = w.id::text
   AND l.balance_id = w.balance_id;

-- Down Migration
