-- Up Migration
-- The money flow (docs/specs.md#money): four-eyes approvals and idempotent requests.
--
-- first_approved_by/at: a deposit or withdrawal above the site's 'second approval above' amount
-- stays pending after its first approval until a different staff member approves it too.
-- client_ref: the random id a form carries, so a double submit creates one request, not two.
ALTER TABLE deposits
  ADD COLUMN first_approved_by bigint REFERENCES users (id),
  ADD COLUMN first_approved_at timestamptz,
  ADD COLUMN client_ref text CHECK (length(client_ref) BETWEEN 8 AND 64);
ALTER TABLE withdrawals
  ADD COLUMN first_approved_by bigint REFERENCES users (id),
  ADD COLUMN first_approved_at timestamptz,
  ADD COLUMN client_ref text CHECK (length(client_ref) BETWEEN 8 AND 64);
CREATE UNIQUE INDEX deposits_client_ref_key ON deposits (user_id, client_ref) WHERE client_ref IS NOT NULL;
CREATE UNIQUE INDEX withdrawals_client_ref_key ON withdrawals (user_id, client_ref) WHERE client_ref IS NOT NULL;
-- the staff lists page by id within a status, and the histories by user; these serve the
-- '{status} of one gateway' and date-range filters at 100,000 customers
CREATE INDEX deposits_created_at_id_idx ON deposits (created_at DESC, id DESC);
CREATE INDEX withdrawals_created_at_id_idx ON withdrawals (created_at DESC, id DESC);

-- Down Migration
DROP INDEX IF EXISTS deposits_created_at_id_idx, withdrawals_created_at_id_idx, deposits_client_ref_key, withdrawals_client_ref_key;
ALTER TABLE deposits DROP COLUMN IF EXISTS first_approved_by, DROP COLUMN IF EXISTS first_approved_at, DROP COLUMN IF EXISTS client_ref;
ALTER TABLE withdrawals DROP COLUMN IF EXISTS first_approved_by, DROP COLUMN IF EXISTS first_approved_at, DROP COLUMN IF EXISTS client_ref;
