// The adapters of the card / wallet / crypto providers other than Stripe and PayPal (issue 13),
// by payment_gateways.name. Each file holds one provider's documented request, signing and
// parsing code; the documentation it rests on is cited at its top.
import type { GatewayAdapter } from '../adapter.ts';
import { coinpayments } from './coinpayments.server.ts';
import { flutterwave } from './flutterwave.server.ts';
import { moonpay } from './moonpay.server.ts';
import { perfectmoney } from './perfectmoney.server.ts';
import { wipays } from './wipays.server.ts';

export const MORE_ADAPTERS = {
  coinpayments,
  flutterwave,
  perfectmoney,
  moonpay,
  wipays,
} as const satisfies Record<string, GatewayAdapter>;

export type MoreAdapterName = keyof typeof MORE_ADAPTERS;

/**
 * Providers with no adapter in this version, and why. A provider listed here is never offered to
 * customers ('not available in this version' when it has no public documentation).
 */
export const UNDOCUMENTED: readonly { name: string; reason: string }[] = [];

/**
 * Providers whose public API documentation was found but whose adapter is not written: the parts
 * needed to write it honestly could not be read (checked 2026-11-25). They must stay unoffered to
 * customers until an adapter exists.
 */
export const NOT_BUILT: readonly { name: string; docs: string; reason: string }[] = [
  {
    name: 'globiance',
    docs: 'https://developers.globiancepay.com/docs/globiance-checkout/api/apis',
    reason: 'POST /create-checkout (base https://merchant-api.globiancepay.com/merchant-api-service, apiKey in the body) is documented, '
      + 'but the checkout page URL in its answer, the webhook payload (https://developers.globiancepay.com/docs/globiance-checkout/api/webhook) '
      + 'and any webhook signature or status call could not be read: no adapter rather than a guessed one',
  },
  {
    name: 'prmoney',
    docs: 'http://prmoney.com/page/api',
    reason: 'the OAuth2 client_credentials token (POST https://prmoney.com/oauth/token) is documented, but the payment page call '
      + 'and the payment notification (fields, signature) that follow it could not be read: no adapter rather than a guessed one',
  },
];
