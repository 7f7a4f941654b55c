-- Up Migration
-- A payout to a bank account (Flutterwave transfers, modules/payments/payouts.server.ts): where the
-- money goes, fixed by the final approval with the payout row: the provider's bank code the
-- approver picked from the provider's own bank list (checked on the server against it), the bank's
-- name there, the account number and holder's name from the withdrawal, its country (ISO-2).
-- Null for a payout to a provider account (PayPal: `receiver`).
ALTER TABLE withdrawal_payouts ADD COLUMN destination jsonb;

-- Down Migration
ALTER TABLE withdrawal_payouts DROP COLUMN IF EXISTS destination;
