-- Up Migration
-- Chargebacks, disputes, refunds and reversals of card / wallet deposits (issue 22 §3,
-- docs/specs.md "Payment gateways"): a provider's signed notification that money of a credited
-- deposit went back to the payer is a payment_events row like any other, and flags its deposit
-- here. Staff (roles 1–2) may then debit the disputed amount once: a 'reversal' ledger entry with
-- the reference ('deposit_dispute', deposit id), whose id is kept with the deposit.
ALTER TABLE deposits
  ADD COLUMN disputed_at         timestamptz,
  ADD COLUMN dispute_kind        text CHECK (dispute_kind IN ('chargeback', 'dispute', 'refund', 'reversal')),
  ADD COLUMN dispute_amount      numeric(20, 8) CHECK (dispute_amount > 0),
  ADD COLUMN dispute_currency    text,
  -- open until the provider reports its end: won (the money came back), lost, closed (any other end)
  ADD COLUMN dispute_state       text CHECK (dispute_state IN ('open', 'won', 'lost', 'closed')),
  ADD COLUMN dispute_debited_at  timestamptz,
  ADD COLUMN dispute_debit_entry bigint REFERENCES ledger_entries (id),
  ADD CONSTRAINT deposits_dispute_flag CHECK ((disputed_at IS NULL) = (dispute_kind IS NULL) AND (disputed_at IS NULL) = (dispute_state IS NULL)),
  ADD CONSTRAINT deposits_dispute_debit CHECK ((dispute_debited_at IS NULL) = (dispute_debit_entry IS NULL) AND (dispute_debited_at IS NULL OR disputed_at IS NOT NULL));
-- the flagged deposits, newest first (few rows: a partial index)
CREATE INDEX deposits_disputed_idx ON deposits (disputed_at DESC, id DESC) WHERE disputed_at IS NOT NULL;
-- the debit's ledger entry (every foreign key is indexed; only debited deposits have one)
CREATE INDEX deposits_dispute_debit_entry_idx ON deposits (dispute_debit_entry) WHERE dispute_debit_entry IS NOT NULL;

-- A dispute's event says what it is about in its state: the kind when it opens, 'resolved' when it ends.
ALTER TABLE payment_events DROP CONSTRAINT payment_events_state_check;
ALTER TABLE payment_events ADD CONSTRAINT payment_events_state_check
  CHECK (state IN ('paid', 'pending', 'failed', 'chargeback', 'dispute', 'refund', 'reversal', 'resolved'));

-- Down Migration
DELETE FROM payment_events WHERE state IN ('chargeback', 'dispute', 'refund', 'reversal', 'resolved');
ALTER TABLE payment_events DROP CONSTRAINT payment_events_state_check;
ALTER TABLE payment_events ADD CONSTRAINT payment_events_state_check CHECK (state IN ('paid', 'pending', 'failed'));
DROP INDEX IF EXISTS deposits_disputed_idx;
DROP INDEX IF EXISTS deposits_dispute_debit_entry_idx;
ALTER TABLE deposits
  DROP CONSTRAINT IF EXISTS deposits_dispute_debit,
  DROP CONSTRAINT IF EXISTS deposits_dispute_flag,
  DROP COLUMN IF EXISTS dispute_debit_entry,
  DROP COLUMN IF EXISTS dispute_debited_at,
  DROP COLUMN IF EXISTS dispute_state,
  DROP COLUMN IF EXISTS dispute_currency,
  DROP COLUMN IF EXISTS dispute_amount,
  DROP COLUMN IF EXISTS dispute_kind,
  DROP COLUMN IF EXISTS disputed_at;
