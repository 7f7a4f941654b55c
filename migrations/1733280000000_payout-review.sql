-- Up Migration
-- A payout whose state the provider's answer left open (issue 22: a refusal of a resend, a refusal
-- naming our reference as used, no answer after several tries): 'review', shown as "Needs review".
-- Nothing is refunded or resent automatically from it (modules/payments/payouts.server.ts
-- holdForReview); a state the provider reports later settles it.
ALTER TABLE withdrawal_payouts DROP CONSTRAINT withdrawal_payouts_status_check;
ALTER TABLE withdrawal_payouts ADD CONSTRAINT withdrawal_payouts_status_check CHECK (status IN ('requested', 'sent', 'paid', 'failed', 'review'));

-- Down Migration
UPDATE withdrawal_payouts SET status = 'sent' WHERE status = 'review';
ALTER TABLE withdrawal_payouts DROP CONSTRAINT withdrawal_payouts_status_check;
ALTER TABLE withdrawal_payouts ADD CONSTRAINT withdrawal_payouts_status_check CHECK (status IN ('requested', 'sent', 'paid', 'failed'));
