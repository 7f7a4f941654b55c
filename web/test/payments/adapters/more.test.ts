// The index of the other providers' adapters: every automatic gateway of kinds.ts except Stripe and
// PayPal (payments-core) has an adapter here or is listed with the reason it has none.
import { describe, expect, it } from 'vitest';
import { GATEWAY_AVAILABILITY, GATEWAY_KINDS } from '~/modules/gateways/kinds.ts';
import { MORE_ADAPTERS, NOT_BUILT, UNDOCUMENTED } from '~/modules/payments/adapters/more.server.ts';

describe('more.server.ts', () => {
  it('serves each adapter under its own gateway name', () => {
    for (const [name, adapter] of Object.entries(MORE_ADAPTERS)) {
      expect(adapter.name).toBe(name);
      expect((GATEWAY_KINDS as readonly string[]).includes(name)).toBe(true);
    }
  });

  it('accounts for every automatic gateway other than Stripe and PayPal, exactly once', () => {
    const automatic = GATEWAY_KINDS.filter((k) => GATEWAY_AVAILABILITY[k].state !== 'manual' && k !== 'stripe' && k !== 'paypal').sort();
    const accounted = [...Object.keys(MORE_ADAPTERS), ...NOT_BUILT.map((n) => n.name), ...UNDOCUMENTED.map((u) => u.name)].sort();
    expect(accounted).toEqual(automatic);
  });
});
