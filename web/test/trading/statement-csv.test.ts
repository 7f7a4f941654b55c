// The statement CSV keeps machine formats whatever the page's language (README "Number
// formats"): ISO 8601 UTC times and plain decimals, and its header says so.
import { afterAll, describe, expect, test } from 'vitest';
import { testSql, createUser, sessionFor, get } from '../helpers.ts';
import { loader as exportLoader } from '~/routes/statements.export.ts';
import { plainDecimal } from '~/components/ui/format.ts';

const sql = testSql();
afterAll(async () => { await sql.end(); });

describe('statement CSV formats', () => {
  test('ISO 8601 UTC times, exact plain decimals without trailing zeros, and a header that says so', async () => {
    const u = await createUser(sql);
    const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
    await sql`UPDATE users SET active_balance_id = ${b.id} WHERE id = ${u.id}`;
    const [i] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, bids, asks, digits)
                          VALUES ('CSVF_USD', 'CSVF', 'USD', 'forex', 100, 1.1, 1.1002, 5)
                          ON CONFLICT (name) DO UPDATE SET base = 'CSVF' RETURNING id`;
    const [o] = await sql`
      INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, close_rate, exchange_rate,
                          spread, pro_loss, margin_used, leverage, close_time, close_reason, created_at)
      VALUES (${u.id}, ${b.id}, ${i.id}, 'sell', 'forex', 1000, 1.08556, 1.0855, 1, 0, -1234.56789012, 11, 100,
              '2024-03-01T12:34:56.789Z', 'manual', '2024-03-01T08:00:00Z') RETURNING id`;
    const s = await sessionFor(sql, u.id);
    const res = (await exportLoader({ request: get('/statements/export', s.cookie), params: {}, context: {} })) as Response;
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe('Ticket,Open Time (ISO 8601 UTC),Close Time (ISO 8601 UTC),Type,Instrument,Units,Open Rate,Close Rate,Profit/Loss,Status,Part of Position,Wallet,Currency');
    expect(lines[1]).toBe(`${o.id},2024-03-01T08:00:00.000Z,2024-03-01T12:34:56.789Z,sell,CSVF/USD,1000,1.08556,1.0855,-1234.56789012,CLOSED,,Real,USD`);
    // a partial close's part names the position it was cut from (docs/specs.md#partial-close)
    const [part] = await sql`
      INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, close_rate, exchange_rate,
                          spread, pro_loss, margin_used, leverage, close_time, close_reason, created_at, position_id)
      VALUES (${u.id}, ${b.id}, ${i.id}, 'sell', 'forex', 500, 1.08556, 1.0855, 1, 0, 0.03, 5.5, 100,
              '2024-03-01T11:00:00Z', 'manual', '2024-03-01T08:00:00Z', ${o.id}) RETURNING id`;
    const again = (await (await exportLoader({ request: get('/statements/export', s.cookie), params: {}, context: {} }) as Response).text()).trimEnd().split('\r\n');
    expect(again[2]).toBe(`${part.id},2024-03-01T08:00:00.000Z,2024-03-01T11:00:00.000Z,sell,CSVF/USD,500,1.08556,1.0855,0.03,CLOSED,${o.id},Real,USD`);
  });

  test('plain decimals: the exact value, no grouping, no trailing zeros', () => {
    expect(['1000.00000000', '1.0855600000', '-0.50', '0.00000000', '12', '12345678901234567.12345678', '', null].map(plainDecimal))
      .toEqual(['1000', '1.08556', '-0.5', '0', '12', '12345678901234567.12345678', '', '']);
  });
});
