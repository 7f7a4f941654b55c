// CoinPayments (legacy HTTP/polled API and IPN), written against:
//   https://www.coinpayments.net/merchant-tools-api        (POST https://www.coinpayments.net/api.php,
//       form-encoded, 'HMAC' header = hex HMAC-SHA512 of the POST body keyed with the private key;
//       answer { error: 'ok', result: {...} })
//   https://www.coinpayments.net/apidoc-create-transaction (cmd=create_transaction: amount, currency1,
//       currency2, buyer_email, buyer_name, item_name, invoice, custom, ipn_url, success_url,
//       cancel_url → result.txn_id, amount, address, checkout_url, status_url, qrcode_url, timeout)
//   https://www.coinpayments.net/apidoc-get-tx-info        (cmd=get_tx_info, txid → status,
//       status_text, coin, amountf, receivedf…)
//   https://www.coinpayments.net/merchant-tools-ipn        (IPN: form-encoded POST, 'HMAC' header =
//       hex HMAC-SHA512 of the raw POST data keyed with the IPN Secret; ipn_id unique; status
//       >= 100 or 2 complete, < 0 failed/cancelled, otherwise pending; amount1/currency1 in the
//       original currency)
//
// Settings (kinds.ts): key1 public key, key2 private key, key3 the coin the buyer pays (currency2).
// The settings have no IPN Secret field: the IPN Secret is a string the merchant chooses on
// CoinPayments' "My Settings" page, so this adapter verifies IPNs with key2 — the merchant sets
// CoinPayments' IPN Secret to the same value as the API private key. There is no merchant id
// field either, so the IPN's 'merchant' is not compared (the HMAC already binds it to our secret).
import { createHmac } from 'node:crypto';
import type { GatewayAdapter, GatewayConfig, PaymentState, VerifiedEvent } from '../adapter.ts';
import { NotificationRefused } from '../adapter.ts';
import { decimalString, depositIdFrom, depositRef, notifyKey, ProviderError, requireKey, safeEqual } from './more-helpers.server.ts';

export const COINPAYMENTS_API_URL = 'https://www.coinpayments.net/api.php';

export const coinpaymentsSign = (body: string, secret: string) => createHmac('sha512', secret).update(body, 'utf8').digest('hex');

/** CoinPayments' documented status codes: >= 100 or 2 complete, < 0 cancelled / timed out. */
export function coinpaymentsState(status: number): PaymentState {
  if (status >= 100 || status === 2) return 'paid';
  if (status < 0) return 'failed';
  return 'pending';
}

/** One signed API call: version, cmd, key and format first, then the command's fields. */
export async function coinpaymentsCall(config: GatewayConfig, cmd: string, fields: Record<string, string>): Promise<Record<string, unknown>> {
  const publicKey = requireKey(config, 'key1', 'public key');
  const privateKey = requireKey(config, 'key2', 'private key');
  const body = new URLSearchParams({ version: '1', cmd, key: publicKey, format: 'json', ...fields }).toString();
  const res = await fetch(COINPAYMENTS_API_URL, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', HMAC: coinpaymentsSign(body, privateKey) },
    body,
  });
  if (!res.ok) throw new ProviderError('coinpayments', `${cmd} answered HTTP ${res.status}`);
  const json = (await res.json().catch(() => null)) as { error?: unknown; result?: unknown } | null;
  if (!json || typeof json.error !== 'string') throw new ProviderError('coinpayments', `${cmd} answered an unreadable body`);
  if (json.error !== 'ok') throw new ProviderError('coinpayments', `${cmd} failed: ${json.error}`);
  if (!json.result || typeof json.result !== 'object') throw new ProviderError('coinpayments', `${cmd} answered no result`);
  return json.result as Record<string, unknown>;
}

export const coinpayments: GatewayAdapter = {
  name: 'coinpayments',

  async createPayment(config, request) {
    const coin = requireKey(config, 'key3', 'payment currency');
    const result = await coinpaymentsCall(config, 'create_transaction', {
      amount: request.total,
      currency1: request.currency,
      currency2: coin,
      buyer_email: request.customer.email,
      buyer_name: request.customer.fullName,
      item_name: `Deposit #${request.depositId}`,
      invoice: depositRef(request.depositId),
      custom: String(request.depositId),
      ipn_url: request.notifyUrl,
      success_url: request.returnUrl,
      cancel_url: request.cancelUrl,
    });
    const txnId = result.txn_id;
    const url = result.checkout_url ?? result.status_url;
    if (typeof txnId !== 'string' || !txnId || typeof url !== 'string' || !url.startsWith('https://')) {
      throw new ProviderError('coinpayments', 'create_transaction answered no txn_id / checkout_url');
    }
    return { kind: 'redirect', url, providerRef: txnId };
  },

  async verifyNotification(config, incoming) {
    const secret = notifyKey(config, 'key2', 'IPN secret (the private key)');
    const hmac = incoming.headers.get('hmac');
    if (!hmac) throw new NotificationRefused('bad_signature', 'no HMAC header');
    if (!safeEqual(hmac.toLowerCase(), coinpaymentsSign(incoming.rawBody, secret))) {
      throw new NotificationRefused('bad_signature', 'the HMAC does not match the body');
    }
    const f = new URLSearchParams(incoming.rawBody);
    if (f.get('ipn_mode') !== 'hmac') throw new NotificationRefused('malformed', "ipn_mode is not 'hmac'");
    const ipnId = f.get('ipn_id');
    const type = f.get('ipn_type');
    if (!ipnId || !type) throw new NotificationRefused('malformed', 'ipn_id / ipn_type missing');
    // Only the payments created by create_transaction are ours ('api'); deposits to callback
    // addresses, buttons and withdrawals are ignored.
    if (type !== 'api') return null;
    const txnId = f.get('txn_id');
    const statusText = f.get('status');
    const status = statusText !== null && /^-?\d+$/.test(statusText) ? Number(statusText) : NaN;
    const amount = decimalString(f.get('amount1'));
    const currency = f.get('currency1');
    if (!txnId || Number.isNaN(status) || !amount || !currency) {
      throw new NotificationRefused('malformed', 'txn_id, status, amount1 or currency1 missing');
    }
    const event: VerifiedEvent = {
      eventId: `coinpayments:${ipnId}`,
      providerRef: txnId,
      depositId: depositIdFrom(f.get('custom')) ?? depositIdFrom(f.get('invoice')),
      state: coinpaymentsState(status),
      amount,
      currency: currency.toUpperCase(),
    };
    return event;
  },

  /**
   * get_tx_info reports the payment in the coin the buyer sends (coin, amountf), not in the
   * original currency: a paid answer whose coin differs from the deposit's currency is held for
   * review by the payments module, as the amount / currency rule says.
   */
  async fetchStatus(config, providerRef) {
    const r = await coinpaymentsCall(config, 'get_tx_info', { txid: providerRef });
    const status = typeof r.status === 'number' ? r.status : Number(r.status);
    const amount = decimalString(r.amountf);
    const coin = r.coin;
    if (!Number.isFinite(status) || !amount || typeof coin !== 'string') {
      throw new ProviderError('coinpayments', 'get_tx_info answered no status / amountf / coin');
    }
    return { providerRef, depositId: null, state: coinpaymentsState(status), amount, currency: coin.toUpperCase() };
  },

  // The IPN documentation asks for any 200 answer; the sample handlers print 'IPN OK'.
  acknowledge: { status: 200, body: 'IPN OK' },
};
