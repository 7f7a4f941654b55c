// The mocks' published keys (issue 22, "3. Payments"; modules/gateways/mock-keys.ts):
// - MOCKS=1 never writes provider keys into the database (before: seedMockKeys copied them into
//   every gateway left without keys, where they stayed once MOCKS was off);
// - with MOCKS off, a gateway holding them cannot be switched on (refused with a message, nothing
//   changed, nothing audited), and one already on is treated as off: no deposit starts, its keys are
//   not handed to any adapter.
// Serial: it changes site-wide gateways (restored after) and the process's parsed environment.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { testSql, createUser, walletFor } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import { gatewayConfig, gatewayCards, saveGateway } from '~/modules/gateways/gateways.server.ts';
import type { GatewayInput } from '~/modules/gateways/kinds.ts';
import { PUBLISHED_MOCK_KEYS, MOCK_KEYS_REFUSED } from '~/modules/gateways/mock-keys.ts';
import { startMockProviders } from '~/modules/payments/mocks.server.ts';
import { gatewayReady, startPayment } from '~/modules/payments/payments.server.ts';
import { MOCK_KEYS } from '../mocks/payments.ts';

const sql = testSql(4);
const NAMES = ['coinpayments', 'wipays', 'perfectmoney'];
const e = env() as { MOCKS: boolean; NODE_ENV: string };
const saved = { MOCKS: e.MOCKS, NODE_ENV: e.NODE_ENV };
let before: Record<string, unknown>[] = [];

beforeAll(async () => {
  for (const [name, title] of [['coinpayments', 'CoinPayments'], ['wipays', 'WiPays'], ['perfectmoney', 'Perfect Money']]) {
    await sql`INSERT INTO payment_gateways (name, title, is_manual, fee, is_active) VALUES (${name}::text::gateway_kind, ${title}, false, 0, false) ON CONFLICT (name) DO NOTHING`;
  }
  before = await sql`SELECT name::text AS name, key1, key2, key3, key4, key5, is_active FROM payment_gateways WHERE name::text IN ${sql(NAMES)}`;
  await sql`UPDATE payment_gateways SET key1 = NULL, key2 = NULL, key3 = NULL, key4 = NULL, key5 = NULL, is_active = false WHERE name::text IN ${sql(NAMES)}`;
});
afterEach(() => Object.assign(e, saved));
afterAll(async () => {
  for (const b of before) {
    await sql`UPDATE payment_gateways SET key1 = ${b.key1 as string | null}, key2 = ${b.key2 as string | null}, key3 = ${b.key3 as string | null},
                key4 = ${b.key4 as string | null}, key5 = ${b.key5 as string | null}, is_active = ${b.is_active as boolean} WHERE name::text = ${b.name as string}`;
  }
  await sql.end();
});

const who = { actorId: null as unknown as number, ip: null };
const rowOf = async (name: string) => (await sql`SELECT key1, key2, key3, is_active FROM payment_gateways WHERE name::text = ${name}`)[0];
const audits = async (name: string) => (await sql`SELECT count(*)::int AS n FROM audit_events WHERE action = 'gateway.update' AND target_id = ${name}`)[0].n as number;

describe('the mocks\' published keys', () => {
  test('the app\'s table is the one the mocks accept', () => {
    expect(PUBLISHED_MOCK_KEYS).toEqual(MOCK_KEYS);
  });

  test('MOCKS=1 writes no key into the database; the adapters get the mocks\' keys in memory', async () => {
    e.MOCKS = true;
    await startMockProviders();
    for (const name of NAMES) expect(await rowOf(name), name).toMatchObject({ key1: null, key2: null, key3: null });
    expect(await gatewayConfig(sql, 'wipays')).toMatchObject({ key1: 'wp-public-test', key2: 'wp-secret-test', active: false });
    // keys the admin saved are the ones used, mocks or not
    await sql`UPDATE payment_gateways SET key1 = 'wp-public-own', key2 = 'wp-secret-own' WHERE name = 'wipays'`;
    expect(await gatewayConfig(sql, 'wipays')).toMatchObject({ key1: 'wp-public-own', key2: 'wp-secret-own' });
    await sql`UPDATE payment_gateways SET key1 = NULL, key2 = NULL WHERE name = 'wipays'`;
  });

  test('MOCKS off: switching on a gateway with the published keys is refused with a message, nothing changed', async () => {
    e.MOCKS = false;
    e.NODE_ENV = 'development';
    const n = await audits('coinpayments');
    const input = { name: 'coinpayments', key1: 'cp-public-test', key2: 'cp-private-test', key3: 'BTC', fee: '1', isActive: true } as unknown as GatewayInput;
    const r = await saveGateway(sql, input, who);
    expect(r).toMatchObject({ ok: false, status: 409, message: MOCK_KEYS_REFUSED, field: 'isActive' });
    expect(await rowOf('coinpayments')).toMatchObject({ key1: null, key2: null, is_active: false });
    expect(await audits('coinpayments')).toBe(n);
    // a published key kept from before (only the switch posted) is refused the same way
    await sql`UPDATE payment_gateways SET key1 = 'cp-public-test', key2 = 'cp-private-test' WHERE name = 'coinpayments'`;
    expect(await saveGateway(sql, { name: 'coinpayments', key1: 'cp-public-test', key2: null, key3: 'BTC', fee: '1', isActive: true } as unknown as GatewayInput, who))
      .toMatchObject({ ok: false, message: MOCK_KEYS_REFUSED });
    // saving them switched off is allowed; the broker's own keys switch on
    expect(await saveGateway(sql, { name: 'coinpayments', key1: 'cp-public-test', key2: null, key3: 'BTC', fee: '1', isActive: false } as unknown as GatewayInput, who)).toMatchObject({ ok: true });
    expect(await saveGateway(sql, { name: 'coinpayments', key1: 'cp-public-own', key2: 'cp-private-own', key3: 'BTC', fee: '1', isActive: true } as unknown as GatewayInput, who)).toMatchObject({ ok: true });
    expect(await gatewayConfig(sql, 'coinpayments')).toMatchObject({ key1: 'cp-public-own', key2: 'cp-private-own', active: true });
  });

  test('MOCKS off: a gateway already on with the published keys is off, keyless, and refuses a deposit start', async () => {
    e.MOCKS = false;
    e.NODE_ENV = 'development';
    // left behind by the old MOCKS=1 seeding: stored in clear, switched on
    await sql`UPDATE payment_gateways SET key1 = 'wp-public-test', key2 = 'wp-secret-test', is_active = true WHERE name = 'wipays'`;
    expect(await gatewayConfig(sql, 'wipays')).toMatchObject({ key1: null, key2: null, active: false });
    expect(await gatewayReady(sql, 'wipays')).toBe(false);
    expect((await gatewayCards(sql, false)).find((c) => c.name === 'wipays')?.isActive).toBe(false);
    const u = await createUser(sql);
    const wallet = await walletFor(sql, u.id);
    const [d] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total) VALUES (${u.id}, ${wallet}, 'wipays', 10, 0, 10) RETURNING id`;
    expect(await startPayment(sql, { depositId: Number(d.id), gateway: 'wipays', origin: 'https://broker.test' })).toEqual({ ok: false, message: 'This gateway is not available yet' });
    // the test suites answer providers with the same mocks: there, the keys work
    e.NODE_ENV = 'test';
    expect(await gatewayConfig(sql, 'wipays')).toMatchObject({ key1: 'wp-public-test', active: true });
    await sql`UPDATE payment_gateways SET key1 = NULL, key2 = NULL, is_active = false WHERE name = 'wipays'`;
  });
});
