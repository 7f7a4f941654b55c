// The payment gateways' settings (docs/specs.md#payment-gateways): per gateway kind,
// which of the row's key1..key5 holds what, its label, whether it is a secret (stored encrypted
// with SECRETS_KEY, shown masked, changed only when a new value is typed), whether the form has a
// fee, an active switch and a QR code, and the gateway's state in this version. Shared with the
// browser (the forms are built from it): no server imports.
import { z } from 'zod';
import { decimalInput } from '~/modules/catalog/numbers.ts';

export const GATEWAY_KINDS = [
  'flutterwave', 'coinpayments', 'paypal', 'bank', 'btc', 'usdt', 'stripe',
  'prmoney', 'wipays', 'perfectmoney', 'globiance', 'moonpay',
] as const;
export type GatewayKind = (typeof GATEWAY_KINDS)[number];
export const isGatewayKind = (s: string): s is GatewayKind => (GATEWAY_KINDS as readonly string[]).includes(s);

/** How each gateway is named on the pages: i18n keys (the seeds write them as the rows' titles). */
export const GATEWAY_TITLES: Readonly<Record<GatewayKind, string>> = {
  flutterwave: 'Flutterwave', coinpayments: 'CoinPayments', paypal: 'PayPal', bank: 'Bank Transfer', btc: 'Bitcoin',
  usdt: 'USDT (TRC-20)', stripe: 'Stripe', prmoney: 'PRMoney', wipays: 'WiPays', perfectmoney: 'Perfect Money',
  globiance: 'Globiance', moonpay: 'MoonPay',
};
const TITLE_KEYS = new Set<string>(Object.values(GATEWAY_TITLES));

/**
 * A gateway in the reader's language, from its name ('paypal') or a title a notification stored
 * ('PayPal'): only the code's titles go through t() (a stored text is no key: asked as one, the
 * browser reports a key nobody has), anything else shows as it is.
 */
export function gatewayLabel(t: (key: string) => string, nameOrTitle: string): string {
  if (isGatewayKind(nameOrTitle)) return t(GATEWAY_TITLES[nameOrTitle]);
  return TITLE_KEYS.has(nameOrTitle) ? t(nameOrTitle) : nameOrTitle;
}

export type KeyColumn = 'key1' | 'key2' | 'key3' | 'key4' | 'key5';
export const KEY_COLUMNS: readonly KeyColumn[] = ['key1', 'key2', 'key3', 'key4', 'key5'];

export interface GatewayField {
  key: KeyColumn;
  /** the label, an i18n key (the words of docs/specs.md#payment-gateways) */
  title: string;
  /** stored encrypted, never sent back in full */
  secret?: boolean;
  /** a choice instead of free text (PayPal's mode) */
  options?: readonly { value: string; title: string }[];
}

export interface GatewayKindSpec {
  fields: readonly GatewayField[];
  fee: boolean;
  active: boolean;
  qr: boolean;
}

const publicKey = (key: KeyColumn): GatewayField => ({ key, title: 'Public key' });
const secretKey = (key: KeyColumn): GatewayField => ({ key, title: 'Secret key', secret: true });
const paid = { fee: true, active: true, qr: false } as const;

/** docs/specs.md#payment-gateways, field by field, in its order (key1 first). */
export const GATEWAY_SPECS: Record<GatewayKind, GatewayKindSpec> = {
  flutterwave: { fields: [publicKey('key1'), secretKey('key2'), { key: 'key3', title: 'Encryption key', secret: true }], ...paid },
  coinpayments: { fields: [publicKey('key1'), secretKey('key2'), { key: 'key3', title: 'Payment currency' }], ...paid },
  paypal: {
    fields: [
      { key: 'key1', title: 'Client key' }, secretKey('key2'),
      { key: 'key3', title: 'Mode', options: [{ value: 'live', title: 'Live' }, { value: 'sandbox', title: 'Sandbox' }] },
      // beyond §3: PayPal's verify-webhook-signature call needs the webhook's id
      { key: 'key4', title: 'Webhook ID' },
    ],
    ...paid,
  },
  bank: {
    fields: [
      { key: 'key1', title: 'Bank name' }, { key: 'key2', title: 'Account holder name' }, { key: 'key3', title: 'IBAN/account number' },
      { key: 'key4', title: 'BIC/Swift code' }, { key: 'key5', title: 'Country' },
    ],
    fee: false, active: false, qr: false,
  },
  btc: { fields: [{ key: 'key1', title: 'Wallet address' }], fee: true, active: true, qr: true },
  usdt: { fields: [{ key: 'key1', title: 'Wallet address' }], fee: true, active: true, qr: true },
  stripe: { fields: [secretKey('key1'), { key: 'key2', title: 'Webhook signing secret', secret: true }], ...paid },
  prmoney: { fields: [{ key: 'key1', title: 'Client ID' }, { key: 'key2', title: 'Client secret', secret: true }], fee: false, active: false, qr: false },
  wipays: { fields: [publicKey('key1'), secretKey('key2')], ...paid },
  // beyond §3: the alternate passphrase, without which no status notification can be verified (V2_HASH)
  perfectmoney: { fields: [{ key: 'key1', title: 'USD wallet' }, { key: 'key2', title: 'EUR wallet' }, { key: 'key3', title: 'Alternate passphrase', secret: true }], ...paid },
  globiance: { fields: [{ key: 'key1', title: 'API key', secret: true }, secretKey('key2')], ...paid },
  moonpay: {
    fields: [
      publicKey('key1'), secretKey('key2'), { key: 'key3', title: 'Webhook key', secret: true },
      { key: 'key4', title: 'Wallet address' }, { key: 'key5', title: 'Crypto receiving' },
    ],
    ...paid,
  },
};

/** The key columns of a kind that are secrets (encrypted at rest). */
export function secretColumns(kind: GatewayKind): KeyColumn[] {
  return GATEWAY_SPECS[kind].fields.filter((f) => f.secret).map((f) => f.key);
}

export type GatewayState = 'available' | 'manual' | 'unavailable';

/**
 * Each gateway's state in this version: 'manual' (the customer pays off-platform and the staff
 * approve), 'available' (an automatic provider whose public API documentation was found: the
 * adapters can be written against it), 'unavailable' (no public API documentation: 'not available in
 * this version', never offered to customers and never switched on). Checked 2026-11-25; the
 * documentation each state rests on is in `docs`.
 */
export const GATEWAY_AVAILABILITY: Record<GatewayKind, { state: GatewayState; docs: string | null }> = {
  bank: { state: 'manual', docs: null },
  btc: { state: 'manual', docs: null },
  usdt: { state: 'manual', docs: null },
  stripe: { state: 'available', docs: 'https://stripe.com/docs/webhooks' },
  paypal: { state: 'available', docs: 'https://developer.paypal.com/api/rest/integration/orders-api' },
  coinpayments: { state: 'available', docs: 'https://a-docs.coinpayments.net/api/auth' },
  flutterwave: { state: 'available', docs: 'https://developer.flutterwave.com/docs/collecting-payments/standard' },
  perfectmoney: { state: 'available', docs: 'Perfect Money Shopping Cart Interface v2.0 specification (perfectmoney.is)' },
  moonpay: { state: 'available', docs: 'https://dev.moonpay.com/api-reference/widget/webhooks/signature' },
  wipays: { state: 'available', docs: 'https://docs.wipays.com' },
  // only part of these two APIs is publicly readable (Globiance: the create call, not the checkout
  // answer nor any notification signature; PRMoney: the OAuth token step only): no adapter is
  // written against a guess, so they are not offered in this version
  globiance: { state: 'unavailable', docs: 'https://developers.globiance.com/docs/globiance-checkout/api/apis (create-checkout request only)' },
  prmoney: { state: 'unavailable', docs: 'http://prmoney.com/page/api (OAuth2 token step only)' },
};

/** The gateways a customer may never be offered in this version. */
export const UNAVAILABLE_GATEWAYS: readonly GatewayKind[] = GATEWAY_KINDS.filter((k) => GATEWAY_AVAILABILITY[k].state === 'unavailable');

export function gatewayState(kind: GatewayKind, availability = GATEWAY_AVAILABILITY): GatewayState {
  return availability[kind].state;
}

// ---------------------------------------------------------------- the form

/** Longest key a provider hands out that we accept (PEM keys are not asked for). */
export const MAX_KEY_LENGTH = 500;

const hasControl = (s: string) => Array.from(s).some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

const text = () => z.unknown().transform((v, ctx) => {
  const s = typeof v === 'string' ? v.trim() : '';
  if (s.length > MAX_KEY_LENGTH) { ctx.addIssue({ code: 'custom', message: 'This field allows at most 500 characters' }); return z.NEVER; }
  if (hasControl(s)) { ctx.addIssue({ code: 'custom', message: 'This field cannot contain control characters' }); return z.NEVER; }
  return s === '' ? null : s;
});

const switchValue = z.unknown().transform((v) => v === 'on' || v === 'true' || v === true);

/** A gateway's fee percent (one schema for every kind, its message registered with the number fields'). */
const FEE_INPUT = decimalInput({ scale: 4, intDigits: 3, zero: true, max: 100 }, { required_error: 'Fee is required', message: 'Fee must be a percent from 0 to 100 with at most 4 decimals' });

/**
 * One kind's form: its key fields (a secret left empty keeps the stored one; any other field left
 * empty is cleared), the fee (a percent from 0 to 100 with at most 4 decimals, payment_gateways.fee
 * numeric(7, 4)) and the active switch where §3 has them. The QR code is a file, read by the upload
 * service, not by this schema.
 */
export function gatewaySchema(kind: GatewayKind) {
  const spec = GATEWAY_SPECS[kind];
  const shape: Record<string, z.ZodTypeAny> = { name: z.literal(kind) };
  for (const f of spec.fields) {
    if (f.options) {
      const values = f.options.map((o) => o.value);
      shape[f.key] = z.unknown().transform((v, ctx) => {
        if (v === undefined || v === null || v === '') { ctx.addIssue({ code: 'custom', message: 'Mode is required' }); return z.NEVER; }
        if (typeof v !== 'string' || !values.includes(v)) { ctx.addIssue({ code: 'custom', message: 'Mode must be live or sandbox' }); return z.NEVER; }
        return v;
      });
    } else shape[f.key] = text();
  }
  if (spec.fee) {
    shape.fee = FEE_INPUT;
  }
  if (spec.active) shape.isActive = switchValue;
  return z.object(shape);
}

export interface GatewayInput {
  name: GatewayKind;
  key1?: string | null; key2?: string | null; key3?: string | null; key4?: string | null; key5?: string | null;
  fee?: string;
  isActive?: boolean;
}

/** What a card shows of a gateway: non-secret values in full, secrets masked. */
export interface GatewayCard {
  name: GatewayKind;
  title: string;
  manual: boolean;
  state: GatewayState;
  fee: string;
  isActive: boolean;
  /** the QR code's URL (btc / usdt), through the upload service */
  qr: string | null;
  /** the non-secret key columns' values */
  values: Partial<Record<KeyColumn, string | null>>;
  /** the secret key columns: '••••abcd', or '' when none is stored */
  masked: Partial<Record<KeyColumn, string>>;
}

/** A gateway's stored configuration as the payment adapters read it (keys decrypted). */
export interface GatewayConfig {
  name: string;
  key1: string | null;
  key2: string | null;
  key3: string | null;
  key4: string | null;
  key5: string | null;
  /** percent, exact decimal string */
  fee: string;
}
