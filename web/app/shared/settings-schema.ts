// One zod schema per site-settings key (docs/specs.md#settings-and-providers). The stored jsonb of
// site_settings.value must parse with its key's schema. Switches are 'on' | 'off'.
import { z } from 'zod';

const onOff = z.enum(['on', 'off']);
const money = z.string().regex(/^\d+(\.\d{1,8})?$/, 'must be a non-negative amount');

export const settingsSchemas = {
  branding: z.object({
    appName: z.string().min(1, 'required'),
    /** '' = not set: links use APP_URL, else the address `npm start` serves on (app-url.server.ts) */
    appUrl: z.string(),
    /** currencies offered at sign-up; the first is the default */
    currencies: z.array(z.string().regex(/^[A-Z]{3}$/)).min(1, 'required'),
    demoInitialBalance: money,
    logoPath: z.string().nullable(),
  }),
  favicon: z.object({ path: z.string().nullable() }),
  authBackground: z.object({ path: z.string().nullable() }),
  whatsapp: z.object({ number: z.string() }),
  kyc: z.object({ deposit: onOff, withdraw: onOff, trade: onOff }),
  /** secretKey is stored encrypted (see secrets.server.ts) */
  recaptcha: z.object({ siteKey: z.string(), secretKey: z.string(), enabled: onOff }),
  pricingPlan: z.object({ enabled: onOff }),
  emailVerify: z.object({ enabled: onOff }),
  /** revealSales / revealRetention: while masked, that role's agents may reveal one contact at a time (audited) */
  showUserInfoAgent: z.object({ enabled: onOff, revealSales: onOff, revealRetention: onOff }),
  theme: z.object({ mode: z.enum(['dark', 'light']) }),
  /** stored encrypted */
  webhookApiKeyLeads: z.object({ key: z.string() }),
  /** four-eyes: a deposit or withdrawal above this amount needs two different staff approvals; '' = off */
  approvals: z.object({ secondApprovalAbove: z.union([z.literal(''), money]) }),
  /** staff without two-factor sign-in must enrol at their next sign-in */
  twoFactor: z.object({ staffRequired: onOff }),
} as const;

export type SettingsKey = keyof typeof settingsSchemas;
export type Settings<K extends SettingsKey> = z.infer<(typeof settingsSchemas)[K]>;

export const settingsDefaults: { [K in SettingsKey]: Settings<K> } = {
  branding: { appName: 'Broker', appUrl: '', currencies: ['USD'], demoInitialBalance: '10000', logoPath: null },
  favicon: { path: null },
  authBackground: { path: null },
  whatsapp: { number: '' },
  kyc: { deposit: 'off', withdraw: 'off', trade: 'off' },
  recaptcha: { siteKey: '', secretKey: '', enabled: 'off' },
  pricingPlan: { enabled: 'on' },
  emailVerify: { enabled: 'off' },
  showUserInfoAgent: { enabled: 'off', revealSales: 'off', revealRetention: 'off' },
  theme: { mode: 'dark' },
  webhookApiKeyLeads: { key: '' },
  approvals: { secondApprovalAbove: '' },
  twoFactor: { staffRequired: 'off' },
};
