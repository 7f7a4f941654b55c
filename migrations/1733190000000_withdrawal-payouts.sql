-- Up Migration
-- Payouts of approved withdrawals through a payment provider (issue 13, modules/payments/payouts.server.ts).
-- One row per withdrawal at most (the primary key): it is written in the transaction of the final
-- approval, so of any number of concurrent approvals one payout exists, and the provider is called
-- with `reference` (chosen once here: 'withdrawal-<id>-<random>') as its idempotency key (PayPal's
-- sender_batch_id), so a retry never pays twice. `receiver` is the provider account the money goes to (PayPal: the payer id of
-- the customer's earlier verified PayPal deposit, return to source); never a secret.
CREATE TABLE withdrawal_payouts (
  withdrawal_id     bigint PRIMARY KEY REFERENCES withdrawals (id),
  gateway           text NOT NULL,
  reference         text NOT NULL UNIQUE,
  status            text NOT NULL DEFAULT 'requested' CHECK (status IN ('requested', 'sent', 'paid', 'failed')),
  receiver          text,
  source_deposit_id bigint REFERENCES deposits (id),
  provider_ref      text,
  provider_item_id  text,
  provider_status   text,
  reason            text,
  attempts          integer NOT NULL DEFAULT 0,
  claimed_at        timestamptz,
  last_error        text,
  requested_by      bigint REFERENCES users (id),
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX withdrawal_payouts_provider_ref_idx ON withdrawal_payouts (gateway, provider_ref) WHERE provider_ref IS NOT NULL;
-- the foreign keys' lookups (a deposit or a staff member deleted or merged)
CREATE INDEX withdrawal_payouts_source_deposit_idx ON withdrawal_payouts (source_deposit_id);
CREATE INDEX withdrawal_payouts_requested_by_idx ON withdrawal_payouts (requested_by);
-- the payout job's scan: payouts not settled yet, least recently touched first
CREATE INDEX withdrawal_payouts_open_idx ON withdrawal_payouts (updated_at) WHERE status IN ('requested', 'sent');

-- What the provider said about each payout (its notifications, our status checks, its answers to
-- the create call): the provider's event id is unique per gateway, so a replay changes nothing.
CREATE TABLE payout_events (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  withdrawal_id bigint REFERENCES withdrawals (id),
  gateway       text NOT NULL,
  event_id      text NOT NULL,
  kind          text NOT NULL,
  state         text NOT NULL CHECK (state IN ('paid', 'pending', 'failed')),
  outcome       text NOT NULL DEFAULT 'received' CHECK (outcome IN ('received', 'verified', 'applied', 'rejected')),
  reason        text,
  raw           jsonb NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (gateway, event_id)
);
CREATE INDEX payout_events_withdrawal_idx ON payout_events (withdrawal_id, id);

-- Down Migration
DROP TABLE IF EXISTS payout_events;
DROP TABLE IF EXISTS withdrawal_payouts;
