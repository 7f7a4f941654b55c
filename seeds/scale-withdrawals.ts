// `npm run seed:scale`'s withdrawals (docs/specs.md#money), in proportion to the 100,000
// customers: about 60,000 bank withdrawals (two fifths of the real wallets have one, a fifth a
// second), 10 % pending (the larger ones approved once, awaiting a second approval), 15 %
// declined with a reason, 75 % approved. Consistent with the ledger as the app makes them:
// each one's total (amount + the admin's fee % and fixed fee, rounded half-up to the cent) is
// held by a 'withdrawal' ledger entry referencing it, posted in id order, with the balance
// after it kept on the row; a declined one also has its 'withdrawal_refund'. Amounts stay
// within 40 % of the wallet's free margin (balance − used margin) at seeding time.
import type postgres from 'postgres';
import { ROLE } from '../engine/src/contract/roles.ts';

export async function seedWithdrawals(tx: postgres.TransactionSql, firstUserId: number): Promise<{ withdrawals: number; pending: number }> {
  const [staff] = await tx`SELECT min(id) FILTER (WHERE role_id = ${ROLE.admin}) AS admin, min(id) FILTER (WHERE role_id = ${ROLE.manager}) AS manager FROM users WHERE deleted_at IS NULL`;
  await tx`
    WITH w AS (
      SELECT b.id AS balance_id, b.user_id, b.balance - b.margin AS free, u.created_at, u.full_name
        FROM balances b JOIN users u ON u.id = b.user_id
       WHERE b.mode = 'real' AND u.id >= ${firstUserId} AND u.email LIKE '%@scale.broker' AND b.id % 5 < 2 AND b.balance - b.margin > 50),
    k AS (
      SELECT w.*, k, abs(hashtext(w.user_id || ':' || k)) % 20 AS s,
             least(50 + ((w.user_id * 13 + k * 7) % 40) * 25, floor(w.free * 0.4 / (k + 1))) AS amount
        FROM w CROSS JOIN LATERAL generate_series(0, CASE WHEN w.balance_id % 5 = 0 THEN 1 ELSE 0 END) AS k),
    x AS (
      SELECT k.*, CASE WHEN s < 2 THEN 'pending' WHEN s < 5 THEN 'declined' ELSE 'approved' END::money_status AS status,
             k.created_at + (now() - k.created_at) * ((k.k + 1) / 3.0) AS at,
             (ARRAY['Chase', 'Barclays', 'Deutsche Bank', 'BNP Paribas', 'Santander', 'UniCredit', 'MUFG', 'RBC'])[1 + (k.user_id % 8)::int] AS bank,
             (ARRAY['CHASUS33', 'BARCGB22', 'DEUTDEFF', 'BNPAFRPP', 'BSCHESMM', 'UNCRITMM', 'BOTKJPJT', 'ROYCCAT2'])[1 + (k.user_id % 8)::int] AS swift,
             (ARRAY['United States', 'United Kingdom', 'Germany', 'France', 'Spain', 'Italy', 'Japan', 'Canada'])[1 + (k.user_id % 8)::int] AS country
        FROM k WHERE k.amount >= 10)
    INSERT INTO withdrawals (user_id, balance_id, gateway, amount, fee, total, status, description, details, decline_reason,
                             decided_by, decided_at, first_approved_by, first_approved_at, created_at)
    SELECT x.user_id, x.balance_id, 'bank', x.amount, f.fee, x.amount + f.fee, x.status, x.bank,
           jsonb_build_object('bankName', x.bank, 'accountName', x.full_name, 'accountNumber', lpad((x.user_id * 97 % 100000000)::text, 8, '0'),
                              'swiftCode', x.swift, 'bankCountry', x.country),
           CASE WHEN x.status = 'declined' THEN (ARRAY['The account holder name does not match', 'The SWIFT code is wrong', 'Open positions need the margin'])[1 + (x.user_id % 3)::int] END,
           CASE WHEN x.status <> 'pending' THEN ${staff.admin}::bigint END,
           CASE WHEN x.status <> 'pending' THEN least(x.at + interval '2 hours', now()) END,
           CASE WHEN x.status = 'pending' AND x.amount > 800 THEN ${staff.manager}::bigint END,
           CASE WHEN x.status = 'pending' AND x.amount > 800 THEN least(x.at + interval '1 hour', now()) END,
           x.at
      FROM x CROSS JOIN withdraw_fee_settings fs
      CROSS JOIN LATERAL (SELECT round(fs.fee_percentage / 100 * x.amount + fs.fee_fixed, 2) AS fee) f
     WHERE fs.id = 1
     ORDER BY x.at, x.balance_id, x.k`;
  // the holds, in id order, each keeping the balance after it
  await tx`
    WITH posted AS (
      SELECT w.id, p.balance_after
        FROM (SELECT id, balance_id, user_id, total FROM withdrawals WHERE user_id >= ${firstUserId} ORDER BY id) w,
        LATERAL post_ledger(w.balance_id, -w.total, 'withdrawal', 'withdrawal', w.id::text, w.user_id, 'withdrawal request: total held') p)
    UPDATE withdrawals SET balance_after = posted.balance_after FROM posted WHERE withdrawals.id = posted.id`;
  // a declined one's hold given back
  await tx`
    SELECT count(p.entry_id)
      FROM (SELECT id, balance_id, total FROM withdrawals WHERE status = 'declined' AND user_id >= ${firstUserId} ORDER BY id) w,
      LATERAL post_ledger(w.balance_id, w.total, 'withdrawal_refund', 'withdrawal', w.id::text, ${staff.admin}::bigint, 'withdrawal declined: hold released') p`;
  const [n] = await tx`SELECT count(*)::int AS withdrawals, count(*) FILTER (WHERE status = 'pending')::int AS pending FROM withdrawals`;
  return n as { withdrawals: number; pending: number };
}
