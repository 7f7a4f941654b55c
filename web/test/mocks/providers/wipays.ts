// msw handler for Wipays' payment initiation (https://docs.wipays.com: POST /payment/initiate, JSON
// with public_key in the body → { status: 'success', message: 'Payment initiated successfully',
// redirect_url }). The known public keys and the calls are in `wipaysMock`.
import { http, HttpResponse } from 'msw';
import { WIPAYS_API } from '~/modules/payments/adapters/wipays.server.ts';

export const wipaysMock = {
  publicKeys: new Set(['wp-public-test']),
  calls: [] as Record<string, unknown>[],
  /** initiated payments by identifier, for the mock checkout (the IPN, the way back) */
  payments: new Map<string, { amount: string; currency: string; ipn_url: string; success_url: string; cancel_url: string }>(),
  reset() {
    this.calls.length = 0;
    this.payments.clear();
  },
};

export const wipaysHandlers = [
  http.post(`${WIPAYS_API}/payment/initiate`, async ({ request }) => {
    const body = (await request.json()) as Record<string, unknown>;
    wipaysMock.calls.push(body);
    if (typeof body.public_key !== 'string' || !wipaysMock.publicKeys.has(body.public_key)) {
      return HttpResponse.json({ status: 'error', message: 'Invalid public key' }, { status: 401 });
    }
    for (const k of ['amount', 'currency', 'identifier', 'ipn_url', 'success_url', 'cancel_url']) {
      if (!body[k]) return HttpResponse.json({ status: 'error', message: `The ${k} field is required.` }, { status: 422 });
    }
    wipaysMock.payments.set(String(body.identifier), {
      amount: String(body.amount), currency: String(body.currency), ipn_url: String(body.ipn_url), success_url: String(body.success_url), cancel_url: String(body.cancel_url),
    });
    return HttpResponse.json({
      status: 'success', message: 'Payment initiated successfully',
      redirect_url: `https://wipays.com/payment/checkout?payment_trx=MOCK${encodeURIComponent(String(body.identifier))}`,
    });
  }),
];
