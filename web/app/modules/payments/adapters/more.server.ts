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
 * Providers whose public API documentation was found but whose adapter is not written yet: they
 * stay unoffered until it is.
 */
export const NOT_BUILT: readonly { name: string; docs: string; reason: string }[] = [
  {
    name: 'globiance',
    docs: 'https://developers.globiancepay.com/docs/globiance-checkout/api/apis',
    reason: 'documented (create-checkout at https://merchant-api.globiancepay.com/merchant-api-service); adapter not written in this branch',
  },
  {
    name: 'prmoney',
    docs: 'http://prmoney.com/page/api',
    reason: 'documented (OAuth2 client_credentials token at https://prmoney.com/oauth/token, then the payment page); adapter not written in this branch',
  },
];
