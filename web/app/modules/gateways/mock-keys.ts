// The keys the local payment mocks accept and sign with (web/test/mocks: MOCK_KEYS, which a test
// requires to equal this table). They are published in this repository, so they are nobody's
// secret (issue 22):
// - under MOCKS=1 they are never written to the database: gatewayConfig (modules/gateways) hands
//   them to the adapters in memory for a gateway whose keys the admin left empty;
// - with MOCKS off, a gateway holding any of them as a credential (its key1 or a secret column)
//   cannot be switched on (saveGateway refuses, naming why), and one already on is treated as off
//   with no keys: no deposit starts, no notification signed with a published secret is believed,
//   no payout is sent. The test suites (NODE_ENV=test) answer the providers with the same mocks
//   and are treated like MOCKS here.
// Plain data: importable by the server without the mocks (msw is a development dependency).
import { env } from '~/shared/env.server.ts';
import { secretColumns, type GatewayKind, type KeyColumn } from './kinds.ts';

export type MockKeys = Partial<Record<KeyColumn, string>>;

export const PUBLISHED_MOCK_KEYS: Readonly<Record<string, MockKeys>> = {
  stripe: { key1: 'sk_test_mock0000000000000000', key2: 'whsec_mock00000000000000000000' },
  paypal: { key1: 'mock-client-id', key2: 'mock-client-secret', key3: 'sandbox', key4: 'MOCKWEBHOOK0001' },
  // public key, private key (also the IPN Secret), the coin the buyer pays
  coinpayments: { key1: 'cp-public-test', key2: 'cp-private-test', key3: 'BTC' },
  // public key, secret key, the webhook's secret hash
  flutterwave: { key1: 'FLWPUBK_TEST-mock-X', key2: 'FLWSECK_TEST-mock-X', key3: 'mock-flw-secret-hash' },
  // publishable key, secret key (URL signing), webhook key, the wallet and the crypto delivered
  moonpay: { key1: 'pk_test_mock', key2: 'sk_test_mock_moonpay', key3: 'wk_test_mock_moonpay', key4: '0xc216eD2D6c295579718dbd4a797845CdA70B3C36', key5: 'usdc' },
  wipays: { key1: 'wp-public-test', key2: 'wp-secret-test' },
  // USD wallet, EUR wallet, alternate passphrase
  perfectmoney: { key1: 'U1234567', key2: 'E1234567', key3: 'mock-alternate-passphrase' },
};

/** Whether the published mock keys may be used here: under MOCKS=1, or in the test suites. */
export const mockKeysAllowed = (): boolean => env().MOCKS || env().NODE_ENV === 'test';

/** Whether a gateway's keys include one of the mocks' published credentials (its key1 or a secret column). */
export function holdsMockKeys(kind: GatewayKind, keys: Partial<Record<KeyColumn, string | null>>): boolean {
  const mock = PUBLISHED_MOCK_KEYS[kind];
  if (!mock) return false;
  const credentials = new Set<KeyColumn>(['key1', ...secretColumns(kind)]);
  return [...credentials].some((k) => {
    const v = keys[k]?.trim();
    return !!v && v === mock[k];
  });
}

export const MOCK_KEYS_REFUSED = "This gateway holds the demo mocks' published keys: enter your own keys before switching it on";
