// MOCKS=1 (utils/env.server.ts): the payment providers answered in this process by the msw handlers
// of web/test/mocks/payments.ts, for trying card deposits without provider accounts. Off, nothing
// here is loaded (msw is a development dependency).
import type { Sql } from '~/utils/db.server.ts';
import { env } from '~/utils/env.server.ts';

type MockModule = typeof import('../../../test/mocks/payments.ts');
let started: Promise<MockModule> | null = null;

/** The mock providers (started on first call), or null when MOCKS is off. */
export function paymentMocks(): Promise<MockModule> | null {
  if (!env().MOCKS) return null;
  started ??= (async () => {
    const [m, { setupServer }] = await Promise.all([import('../../../test/mocks/payments.ts'), import('msw/node')]);
    setupServer(...m.paymentHandlers).listen({ onUnhandledRequest: 'bypass' });
    console.warn('[payments] MOCKS=1: Stripe and PayPal are answered by local mocks (web/test/mocks/payments.ts)');
    return m;
  })();
  return started;
}

/** Under MOCKS: the mocks' keys for Stripe / PayPal when the admin saved none (the gateways stay as active as they were). */
export async function seedMockKeys(sql: Sql): Promise<void> {
  const m = await paymentMocks();
  if (!m) return;
  for (const [name, k] of Object.entries(m.MOCK_KEYS) as [string, Record<string, string>][]) {
    await sql`UPDATE payment_gateways SET key1 = ${k.key1}, key2 = ${k.key2}, key3 = ${k.key3 ?? null}, key4 = ${k.key4 ?? null}
               WHERE name::text = ${name} AND coalesce(key1, '') = ''`;
  }
  m.setPaypalAutoWebhook({ webhookId: m.MOCK_KEYS.paypal.key4 });
}
