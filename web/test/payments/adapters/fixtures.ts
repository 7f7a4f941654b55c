// Shared inputs of the adapter tests: a gateway config and a pending deposit's payment request.
import type { GatewayConfig, IncomingNotification, PaymentRequest } from '~/modules/payments/adapter.ts';

export function config(name: string, keys: Partial<Pick<GatewayConfig, 'key1' | 'key2' | 'key3' | 'key4' | 'key5'>>): GatewayConfig {
  return { name, key1: null, key2: null, key3: null, key4: null, key5: null, fee: '0', ...keys };
}

export const request: PaymentRequest = {
  depositId: 42,
  total: '100.50',
  currency: 'USD',
  customer: { id: 7, email: 'alice@demo.broker', fullName: 'Alice Trader' },
  returnUrl: 'https://broker.test/deposit/return',
  cancelUrl: 'https://broker.test/deposit/cancel',
  notifyUrl: 'https://broker.test/payments/webhook/x',
};

export const NOW = new Date('2026-11-25T01:00:00Z');

export function incoming(rawBody: string, headers: Record<string, string> = {}, now = NOW): IncomingNotification {
  return { rawBody, headers: new Headers(headers), now };
}
