// Perfect Money, Shopping Cart Interface (SCI) v2.0, written against the "Perfect Money Shopping
// Cart Interface v2.0 Specification" (SR & I, perfectmoney.is; the copy read is
// https://vi.scribd.com/document/251695571/Perfect-Money-API) and Perfect Money's own sample status
// handler (the V2_HASH concatenation below):
//   entry form: POST https://perfectmoney.is/api/step1.asp with the hidden fields PAYEE_ACCOUNT,
//       PAYEE_NAME, PAYMENT_AMOUNT, PAYMENT_UNITS, PAYMENT_ID, STATUS_URL, PAYMENT_URL,
//       PAYMENT_URL_METHOD, NOPAYMENT_URL, NOPAYMENT_URL_METHOD, SUGGESTED_MEMO, BAGGAGE_FIELDS
//   status form (to STATUS_URL): PAYEE_ACCOUNT, PAYMENT_ID, PAYMENT_AMOUNT, PAYMENT_UNITS,
//       PAYMENT_BATCH_NUM, PAYER_ACCOUNT, TIMESTAMPGMT, V2_HASH where
//       V2_HASH = upper(MD5(PAYMENT_ID:PAYEE_ACCOUNT:PAYMENT_AMOUNT:PAYMENT_UNITS:PAYMENT_BATCH_NUM:
//                           PAYER_ACCOUNT:upper(MD5(alternate passphrase)):TIMESTAMPGMT))
//
// Settings (kinds.ts): key1 USD wallet (U…), key2 EUR wallet (E…). The V2_HASH needs the account's
// Alternate Passphrase, for which docs/specs.md#payment-gateways lists no field: this adapter reads it from key3 (not
// shown by the perfectmoney form today) and refuses every status notification as 'not_configured'
// while key3 is empty. Perfect Money's SCI has no payment status API (its account API needs the
// account id and password, which are not in the settings): fetchStatus says so.
import { createHash } from 'node:crypto';
import type { GatewayAdapter, GatewayConfig, VerifiedEvent } from '../adapter.ts';
import { NotificationRefused } from '../adapter.ts';
import { decimalString, depositIdFrom, depositRef, notifyKey, ProviderError, requireKey, safeEqual } from './more-helpers.server.ts';

export const PERFECTMONEY_SCI_URL = 'https://perfectmoney.is/api/step1.asp';

const md5Upper = (s: string) => createHash('md5').update(s, 'utf8').digest('hex').toUpperCase();

/** The documented V2_HASH of a status form. */
export function perfectMoneyV2Hash(f: Record<'PAYMENT_ID' | 'PAYEE_ACCOUNT' | 'PAYMENT_AMOUNT' | 'PAYMENT_UNITS' | 'PAYMENT_BATCH_NUM' | 'PAYER_ACCOUNT' | 'TIMESTAMPGMT', string>, passphrase: string): string {
  return md5Upper([f.PAYMENT_ID, f.PAYEE_ACCOUNT, f.PAYMENT_AMOUNT, f.PAYMENT_UNITS, f.PAYMENT_BATCH_NUM, f.PAYER_ACCOUNT, md5Upper(passphrase), f.TIMESTAMPGMT].join(':'));
}

function wallet(config: GatewayConfig, units: string): string | null {
  if (units === 'USD') return config.key1;
  if (units === 'EUR') return config.key2;
  return null;
}

export const perfectmoney: GatewayAdapter = {
  name: 'perfectmoney',

  async createPayment(config, request) {
    const units = request.currency.toUpperCase();
    if (units !== 'USD' && units !== 'EUR') throw new ProviderError('perfectmoney', `PAYMENT_UNITS ${units} is not offered (USD and EUR wallets only)`);
    const payee = requireKey(config, units === 'USD' ? 'key1' : 'key2', `${units} wallet`);
    const ref = depositRef(request.depositId);
    return {
      kind: 'form',
      action: PERFECTMONEY_SCI_URL,
      method: 'POST',
      providerRef: ref,
      fields: {
        PAYEE_ACCOUNT: payee,
        PAYEE_NAME: `Deposit #${request.depositId}`,
        PAYMENT_AMOUNT: request.total,
        PAYMENT_UNITS: units,
        PAYMENT_ID: ref,
        STATUS_URL: request.notifyUrl,
        PAYMENT_URL: request.returnUrl,
        PAYMENT_URL_METHOD: 'GET',
        NOPAYMENT_URL: request.cancelUrl,
        NOPAYMENT_URL_METHOD: 'GET',
        SUGGESTED_MEMO: `Deposit #${request.depositId}`,
        BAGGAGE_FIELDS: '',
      },
    };
  },

  async verifyNotification(config, incoming) {
    const passphrase = notifyKey(config, 'key3', 'alternate passphrase');
    const f = new URLSearchParams(incoming.rawBody);
    const get = (k: string) => f.get(k);
    const fields = {
      PAYMENT_ID: get('PAYMENT_ID'), PAYEE_ACCOUNT: get('PAYEE_ACCOUNT'), PAYMENT_AMOUNT: get('PAYMENT_AMOUNT'),
      PAYMENT_UNITS: get('PAYMENT_UNITS'), PAYMENT_BATCH_NUM: get('PAYMENT_BATCH_NUM'), PAYER_ACCOUNT: get('PAYER_ACCOUNT'),
      TIMESTAMPGMT: get('TIMESTAMPGMT'),
    };
    const hash = get('V2_HASH');
    if (Object.values(fields).some((v) => v === null || v === '') || !hash) {
      throw new NotificationRefused('malformed', 'a status field or V2_HASH is missing');
    }
    const complete = fields as Record<keyof typeof fields, string>;
    if (!safeEqual(hash.toUpperCase(), perfectMoneyV2Hash(complete, passphrase))) {
      throw new NotificationRefused('bad_signature', 'V2_HASH does not match');
    }
    const amount = decimalString(complete.PAYMENT_AMOUNT);
    if (!amount) throw new NotificationRefused('malformed', 'PAYMENT_AMOUNT is not a decimal');
    const units = complete.PAYMENT_UNITS.toUpperCase();
    const ours = wallet(config, units);
    if (!ours || ours !== complete.PAYEE_ACCOUNT) throw new NotificationRefused('malformed', 'PAYEE_ACCOUNT is not our wallet for these units');
    // The status URL is called for completed payments only (the spec): the batch number is
    // Perfect Money's id of the transfer.
    const event: VerifiedEvent = {
      eventId: `perfectmoney:${complete.PAYMENT_BATCH_NUM}`,
      providerRef: complete.PAYMENT_ID,
      depositId: depositIdFrom(complete.PAYMENT_ID),
      state: 'paid',
      amount,
      currency: units,
    };
    return event;
  },

  async fetchStatus() {
    throw new ProviderError('perfectmoney', 'the Shopping Cart Interface offers no payment status API; a payment is known only from its status notification');
  },

  acknowledge: { status: 200, body: '' },
};
