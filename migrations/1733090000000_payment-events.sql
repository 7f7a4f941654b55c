-- Up Migration
-- Payment notifications of the card / wallet gateways (issue 13, modules/payments): every verified
-- notification of a provider, and every status check of the reconciliation job, is one row. The
-- provider's own event id is unique per gateway, so a replayed delivery changes nothing. The raw
-- summary keeps what the provider said about the payment (ids, state, amount) and never a secret.
CREATE TYPE payment_event_outcome AS ENUM ('received', 'verified', 'applied', 'rejected');

CREATE TABLE payment_events (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  deposit_id   bigint REFERENCES deposits (id),
  gateway      text NOT NULL,
  event_id     text NOT NULL,
  kind         text NOT NULL,
  state        text NOT NULL CHECK (state IN ('paid', 'pending', 'failed')),
  amount       numeric(20, 8),
  currency     text,
  outcome      payment_event_outcome NOT NULL DEFAULT 'received',
  reason       text,
  raw          jsonb NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (gateway, event_id)
);
CREATE INDEX payment_events_deposit_idx ON payment_events (deposit_id, id);
-- the reconciliation job's scan: pending deposits of card / wallet gateways, oldest first
CREATE INDEX deposits_pending_gateway_idx ON deposits (gateway, created_at) WHERE status = 'pending';

-- The reconciliation job's last look at each pending deposit, so a payment its provider cannot
-- answer about (unreachable, unknown to it) does not hold back the others: the least recently
-- checked come first.
CREATE TABLE payment_checks (
  deposit_id  bigint PRIMARY KEY REFERENCES deposits (id),
  checked_at  timestamptz NOT NULL DEFAULT now(),
  attempts    integer NOT NULL DEFAULT 1,
  last_error  text
);

-- Down Migration
DROP TABLE IF EXISTS payment_checks;
DROP INDEX IF EXISTS deposits_pending_gateway_idx;
DROP TABLE IF EXISTS payment_events;
DROP TYPE IF EXISTS payment_event_outcome;
