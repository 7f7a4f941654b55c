// Every provider mock of the payments adapters in one list (tests, and MOCKS=1).
import { coinpaymentsHandlers } from './coinpayments.ts';
import { flutterwaveHandlers } from './flutterwave.ts';
import { moonpayHandlers } from './moonpay.ts';
import { wipaysHandlers } from './wipays.ts';

export const moreProviderHandlers = [...coinpaymentsHandlers, ...flutterwaveHandlers, ...moonpayHandlers, ...wipaysHandlers];
