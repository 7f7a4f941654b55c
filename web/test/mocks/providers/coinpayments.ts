// msw handlers for CoinPayments' legacy API (https://www.coinpayments.net/merchant-tools-api):
// one POST endpoint, form-encoded, the 'HMAC' header = hex HMAC-SHA512 of the body keyed with the
// private key; answers { error: 'ok' | message, result }. create_transaction and get_tx_info answer
// in the documented shapes. The known key pairs, the transactions and the calls are in
// `coinpaymentsMock` so tests (and MOCKS=1) can seed and inspect them.
import { createHmac } from 'node:crypto';
import { http, HttpResponse } from 'msw';
import { COINPAYMENTS_API_URL } from '~/modules/payments/adapters/coinpayments.server.ts';

export interface MockCoinpaymentsTx {
  txn_id: string;
  amount1: string;
  currency1: string;
  coin: string;
  amountf: string;
  status: number;
  status_text: string;
  custom: string;
  invoice: string;
  /** what create_transaction was given, for the mock checkout (the IPN, the way back) */
  buyer_name?: string;
  buyer_email?: string;
  ipn_url?: string;
  success_url?: string;
  cancel_url?: string;
}

export const coinpaymentsMock = {
  /** public key → private key */
  keys: new Map<string, string>([['cp-public-test', 'cp-private-test']]),
  txs: new Map<string, MockCoinpaymentsTx>(),
  calls: [] as { hmac: string | null; body: string }[],
  /** the coin amount quoted for 1 unit of currency1 (fixed for the mock) */
  rate: '0.00002',
  reset() {
    this.txs.clear();
    this.calls.length = 0;
  },
};

let seq = 0;

export const coinpaymentsHandlers = [
  http.post(COINPAYMENTS_API_URL, async ({ request }) => {
    const body = await request.text();
    const hmac = request.headers.get('hmac');
    coinpaymentsMock.calls.push({ hmac, body });
    const f = new URLSearchParams(body);
    const priv = coinpaymentsMock.keys.get(f.get('key') ?? '');
    if (!priv) return HttpResponse.json({ error: 'Invalid API public key passed', result: [] });
    if (!hmac || createHmac('sha512', priv).update(body).digest('hex') !== hmac) return HttpResponse.json({ error: 'HMAC signature does not match', result: [] });
    const cmd = f.get('cmd');
    if (cmd === 'create_transaction') {
      const amount = f.get('amount');
      const c1 = f.get('currency1');
      const c2 = f.get('currency2');
      if (!amount || !c1 || !c2 || !f.get('buyer_email')) return HttpResponse.json({ error: 'Missing required fields', result: [] });
      seq += 1;
      const txn_id = `CPMOCK${String(seq).padStart(8, '0')}`;
      const coinAmount = (Number(amount) * Number(coinpaymentsMock.rate)).toFixed(8);
      coinpaymentsMock.txs.set(txn_id, {
        txn_id, amount1: amount, currency1: c1, coin: c2, amountf: coinAmount, status: 0, status_text: 'Waiting for buyer funds...',
        custom: f.get('custom') ?? '', invoice: f.get('invoice') ?? '',
        buyer_name: f.get('buyer_name') ?? '', buyer_email: f.get('buyer_email') ?? '',
        ipn_url: f.get('ipn_url') ?? '', success_url: f.get('success_url') ?? '', cancel_url: f.get('cancel_url') ?? '',
      });
      return HttpResponse.json({
        error: 'ok',
        result: {
          amount: coinAmount, txn_id, address: 'mockAddress1111111111111111111111', confirms_needed: '2', timeout: 9000,
          checkout_url: `https://www.coinpayments.net/index.php?cmd=checkout&id=${txn_id}&key=mock`,
          status_url: `https://www.coinpayments.net/index.php?cmd=status&id=${txn_id}&key=mock`,
          qrcode_url: `https://www.coinpayments.net/qrgen.php?id=${txn_id}&key=mock`,
        },
      });
    }
    if (cmd === 'get_tx_info') {
      const tx = coinpaymentsMock.txs.get(f.get('txid') ?? '');
      if (!tx) return HttpResponse.json({ error: 'Transaction not found', result: [] });
      const satoshi = Math.round(Number(tx.amountf) * 1e8);
      const paid = tx.status >= 100 || tx.status === 2;
      return HttpResponse.json({
        error: 'ok',
        result: {
          time_created: 1732500000, time_expires: 1732509000, status: tx.status, status_text: tx.status_text, type: 'coins',
          coin: tx.coin, amount: satoshi, amountf: tx.amountf, received: paid ? satoshi : 0, receivedf: paid ? tx.amountf : '0.00000000',
          recv_confirms: paid ? 2 : 0, payment_address: 'mockAddress1111111111111111111111',
        },
      });
    }
    return HttpResponse.json({ error: 'Unknown command', result: [] });
  }),
];
