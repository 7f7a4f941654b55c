// The Site Settings form (/admin/settings, docs/specs.md#settings-and-providers): its fields and
// its one zod schema, run in the browser and in the action over the form's raw strings (parse with
// { coerce: false }). Shared with the browser: no server imports. Secrets (the reCAPTCHA secret,
// the leads webhook key) are never sent to the browser: an empty field keeps the stored one, a
// typed value replaces it, the 'remove' box clears it.
import { z } from 'zod';

/** The switches of the form, each a checkbox posted as 'on' when ticked. */
export const SETTING_SWITCHES = [
  'kycDeposit', 'kycWithdraw', 'kycTrade', 'recaptchaEnabled', 'pricingPlan', 'emailVerify', 'showUserInfoAgent', 'revealSales', 'revealRetention',
  'darkTheme', 'staffTwoFactor',
] as const;
export type SettingSwitch = (typeof SETTING_SWITCHES)[number];

export const SWITCH_LABELS: Record<SettingSwitch, string> = {
  kycDeposit: 'KYC Required For Deposit',
  kycWithdraw: 'KYC Required For Withdraw',
  kycTrade: 'KYC Required For Trade',
  recaptchaEnabled: 'Recaptcha',
  pricingPlan: 'Pricing Plan',
  emailVerify: 'Email Verification (Registration)',
  showUserInfoAgent: 'Show Email & Phone in Agent Dashboard',
  revealSales: 'Sales agents may reveal a masked Email or Phone (audited)',
  revealRetention: 'Retention agents may reveal a masked Email or Phone (audited)',
  darkTheme: 'Dark Theme',
  staffTwoFactor: 'Two-factor required for staff',
};

/** The branding pictures: form field → upload kind (modules/uploads/kinds.ts). */
export const SETTINGS_FILE_FIELDS = { favicon: 'favicon', logo: 'logo', authBackground: 'auth_background' } as const;
export type SettingsFileField = keyof typeof SETTINGS_FILE_FIELDS;

/** ISO 4217 codes as the runtime knows them (Intl); a few common ones when it cannot list them. */
export function knownCurrencies(): ReadonlySet<string> {
  try {
    return new Set((Intl as unknown as { supportedValuesOf: (k: string) => string[] }).supportedValuesOf('currency'));
  } catch {
    return new Set(['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'AUD', 'CAD', 'NZD']);
  }
}

/** 'USD, eur GBP' → ['USD', 'EUR', 'GBP'] (order kept, repeats dropped). */
export function currencyList(raw: string): string[] {
  return [...new Set(raw.split(/[\s,;]+/).map((c) => c.trim().toUpperCase()).filter(Boolean))];
}

const MONEY = /^\d{1,12}(\.\d{1,8})?$/;
/** The broker's leads webhook key is a bearer secret: shorter ones are refused when saved (issue 22). */
export const LEADS_KEY_MIN_LENGTH = 24;
const text = (max: number) => z.string().trim().max(max, 'Too long').optional().transform((v) => v ?? '');
const box = z.literal('on').optional();

export const SiteSettingsSchema = z.object({
  appName: z.string({ required_error: 'required' }).trim().min(1, 'required').max(100, 'Too long'),
  // optional: empty keeps the default (APP_URL, else this server's address), which is shown, not stored
  appUrl: z.string().trim().max(300, 'Too long').optional().transform((v) => v ?? '')
    .refine((v) => {
      if (!v) return true;
      try { const u = new URL(v); return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname; } catch { return false; }
    }, 'Enter a valid http(s) URL'),
  appCurrency: z.string({ required_error: 'required' }).trim().min(1, 'required').max(200, 'Too long')
    .refine((v) => { if (!v) return true; const known = knownCurrencies(); const list = currencyList(v); return list.length > 0 && list.every((c) => known.has(c)); },
      'Use ISO currency codes such as USD, EUR'),
  demoInitialBalance: z.string({ required_error: 'required' }).trim().min(1, 'required').regex(MONEY, 'Enter a non-negative amount'),
  secondApprovalAbove: z.string().trim().optional().transform((v) => v ?? '')
    .refine((v) => v === '' || MONEY.test(v), 'Enter a non-negative amount'),
  recaptchaSiteKey: text(200),
  recaptchaSecret: text(200),
  recaptchaSecretClear: box,
  whatsapp: z.string().trim().max(30, 'Too long').optional().transform((v) => v ?? '')
    .refine((v) => v === '' || /^\+?[\d\s()-]{5,}$/.test(v), 'Enter a phone number with digits only'),
  // empty keeps the stored key, and so does its masked form ('••••abcd') sent back unchanged
  webhookApiKey: text(200).refine((v) => v === '' || v.startsWith('••••') || v.length >= LEADS_KEY_MIN_LENGTH,
    'The leads API key must be at least 24 characters'),
  webhookApiKeyClear: box,
  logoClear: box,
  faviconClear: box,
  authBackgroundClear: box,
  kycDeposit: box, kycWithdraw: box, kycTrade: box, recaptchaEnabled: box, pricingPlan: box,
  emailVerify: box, showUserInfoAgent: box, revealSales: box, revealRetention: box, darkTheme: box, staffTwoFactor: box,
  // the file inputs are received by the upload service; the schema lets them through
  favicon: z.unknown().optional(), logo: z.unknown().optional(), authBackground: z.unknown().optional(),
});
export type SiteSettingsInput = z.output<typeof SiteSettingsSchema>;

/** What the page's loader sends: the stored values, secrets only as whether one is set and a mask. */
export interface SiteSettingsView {
  appName: string;
  /** what the admin typed ('' when none) */
  appUrl: string;
  /** the address used while appUrl is empty (APP_URL, else this server's), shown beside the field */
  appUrlDefault: string;
  appCurrency: string; demoInitialBalance: string; secondApprovalAbove: string;
  recaptchaSiteKey: string; whatsapp: string;
  recaptchaSecret: { set: boolean; masked: string };
  webhookApiKey: { set: boolean; masked: string };
  files: Record<SettingsFileField, string | null>;
  switches: Record<SettingSwitch, boolean>;
}
