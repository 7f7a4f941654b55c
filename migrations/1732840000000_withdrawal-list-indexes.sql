-- Up Migration
-- The staff withdrawal lists (/admin/withdraws/pending and /history) sort by id, amount or date,
-- with or without a status filter (docs/architecture.md: every list filter and sort has an index).
-- Already there: (status, id DESC), (created_at DESC, id DESC), the primary key.
CREATE INDEX withdrawals_status_amount_idx ON withdrawals (status, amount DESC, id DESC);
CREATE INDEX withdrawals_amount_idx ON withdrawals (amount DESC, id DESC);
CREATE INDEX withdrawals_status_created_at_idx ON withdrawals (status, created_at DESC, id DESC);

-- Down Migration
DROP INDEX IF EXISTS withdrawals_status_amount_idx, withdrawals_amount_idx, withdrawals_status_created_at_idx;
