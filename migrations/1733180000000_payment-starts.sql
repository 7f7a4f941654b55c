-- Up Migration
-- The browser form a provider's payment starts with (PaymentStart kind 'form', e.g. Perfect Money's
-- SCI entry form), kept for the customer's start page /deposits/start/:depositId: the page posts
-- exactly the fields the adapter built, once, without asking the adapter again. Only what the
-- provider's public form carries is stored (no key, no passphrase).
CREATE TABLE payment_starts (
  deposit_id  bigint PRIMARY KEY REFERENCES deposits (id) ON DELETE CASCADE,
  action      text NOT NULL CHECK (action ~ '^(https://|/)'),
  method      text NOT NULL CHECK (method IN ('POST', 'GET')),
  fields      jsonb NOT NULL CHECK (jsonb_typeof(fields) = 'object'),
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE payment_starts;
