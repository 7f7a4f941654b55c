// MOCKS=1 (shared/env.server.ts): the payment providers answered in this process by the msw handlers
// of web/test/mocks/ (payments.ts, providers/*.ts), for trying card, wallet and crypto deposits
// without provider accounts; their hosted checkouts are the app's mock pages
// (/payments/mock/:gateway/:ref, web/test/mocks/checkouts.ts). Off, nothing here is loaded (msw is a
// development dependency).
import { env } from '~/shared/env.server.ts';
import type { PaymentStart } from './adapter.ts';

type MockModule = typeof import('../../../test/mocks/payments.ts');
let started: Promise<MockModule> | null = null;

/** The mock providers (started on first call), or null when MOCKS is off. */
export function paymentMocks(): Promise<MockModule> | null {
  if (!env().MOCKS) return null;
  started ??= (async () => {
    const [m, { setupServer }] = await Promise.all([import('../../../test/mocks/payments.ts'), import('msw/node')]);
    setupServer(...m.allPaymentHandlers).listen({ onUnhandledRequest: 'bypass' });
    console.warn('[payments] MOCKS=1: Stripe, PayPal, CoinPayments, Flutterwave, MoonPay, Wipays and Perfect Money are answered by local mocks (web/test/mocks/)');
    return m;
  })();
  return started;
}

/**
 * Under MOCKS: starts the mock providers. Nothing is written to the database (issue 22): a gateway
 * the admin left without keys gets the mocks' keys in memory from gatewayConfig (mock-keys.ts), so
 * turning MOCKS off leaves no published key behind in payment_gateways.
 */
export async function startMockProviders(): Promise<void> {
  const m = await paymentMocks();
  if (!m) return;
  m.setPaypalAutoWebhook({ webhookId: m.MOCK_KEYS.paypal?.key4 ?? '' });
}

/**
 * Where the customer's browser goes to pay: under MOCKS, the provider's checkout address (which no
 * browser can reach: the mocks answer the server only) becomes the app's mock checkout page.
 * Without MOCKS, the start as the adapter made it.
 */
export async function browserStart(start: PaymentStart): Promise<PaymentStart> {
  const m = await paymentMocks();
  return m ? m.localCheckout(start) : start;
}
