// msw handlers for MoonPay's buy transactions by external id
// (GET https://api.moonpay.com/v1/transactions/ext/{externalTransactionId}?apiKey=<publishable key>,
// an array of buy transaction objects, https://dev.moonpay.com/api-reference/widget/getbuytransaction).
// `moonpayMock.transaction()` builds a transaction object in the documented shape (the same object
// the webhooks carry, https://dev.moonpay.com/api-reference/widget/webhooks/buy).
import { http, HttpResponse } from 'msw';
import { MOONPAY_API } from '~/modules/payments/adapters/moonpay.server.ts';

export type MockMoonpayTx = Record<string, unknown> & { id: string; externalTransactionId: string; status: string };

export const moonpayMock = {
  publishableKeys: new Set(['pk_test_mock']),
  txs: [] as MockMoonpayTx[],
  calls: [] as string[],
  reset() {
    this.txs.length = 0;
    this.calls.length = 0;
  },
  transaction(externalTransactionId: string, o: { status?: string; baseCurrencyAmount?: number; feeAmount?: number; extraFeeAmount?: number; networkFeeAmount?: number; currency?: string; id?: string; updatedAt?: string; walletAddress?: string; cryptoCode?: string; externalCustomerId?: string | null } = {}): MockMoonpayTx {
    return {
      isFromQuote: true, isRecurring: false, isTicketPayment: false,
      id: o.id ?? `bda09e91-559f-4e7a-807a-${String(this.txs.length + 1).padStart(12, '0')}`,
      createdAt: '2026-11-25T01:00:03.640Z', updatedAt: o.updatedAt ?? '2026-11-25T01:00:31.251Z',
      baseCurrencyAmount: o.baseCurrencyAmount ?? 95.45, quoteCurrencyAmount: 95.1, feeAmount: o.feeAmount ?? 3.99,
      extraFeeAmount: o.extraFeeAmount ?? 0, networkFeeAmount: o.networkFeeAmount ?? 0.56, areFeesIncluded: true, flow: 'principal',
      status: o.status ?? 'completed', walletAddress: o.walletAddress ?? '0xc216eD2D6c295579718dbd4a797845CdA70B3C36', walletAddressTag: null,
      cryptoTransactionId: '0x6751c8fce2e0fb5d57bb4801b31b35a7160fa362e0c5703d44cfd508317ee2f8', failureReason: null,
      externalTransactionId, externalCustomerId: o.externalCustomerId === undefined ? '7' : o.externalCustomerId, baseCurrencyId: '71435a8d-211c-4664-a59e-2a5361a6c5a7',
      baseCurrency: { id: '71435a8d-211c-4664-a59e-2a5361a6c5a7', type: 'fiat', name: 'US Dollar', code: o.currency ?? 'usd', precision: 2 },
      currencyId: '8d305f63-1fd7-4e01-a220-8445e591aec4',
      currency: { id: '8d305f63-1fd7-4e01-a220-8445e591aec4', type: 'crypto', name: 'USD Coin', code: o.cryptoCode ?? 'usdc', precision: 2 },
    };
  },
};

export const moonpayHandlers = [
  http.get(`${MOONPAY_API}/v1/transactions/ext/:ext`, ({ request, params }) => {
    moonpayMock.calls.push(request.url);
    const key = new URL(request.url).searchParams.get('apiKey');
    if (!key || !moonpayMock.publishableKeys.has(key)) return HttpResponse.json({ errors: [], message: 'Invalid API key', type: 'UnauthorizedError' }, { status: 401 });
    const list = moonpayMock.txs.filter((t) => t.externalTransactionId === params.ext);
    if (list.length === 0) return HttpResponse.json({ errors: [], message: 'Transaction not found', type: 'NotFoundError' }, { status: 404 });
    return HttpResponse.json(list);
  }),
];
