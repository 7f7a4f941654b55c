// Site Settings (/admin/settings, docs/specs.md#settings-and-providers): reads the stored keys
// for the form and saves the form in one transaction with its audit row. Secrets (the reCAPTCHA
// secret, the leads webhook key) are stored encrypted with SECRETS_KEY (contract/secrets.ts),
// shown masked, and audited masked. Every web process drops its copy of site_settings on the
// trigger's NOTIFY (live-cache), this one at once: a change shows on the next request everywhere.
import { decryptSecret, encryptSecret, isMaskedSecret, maskSecret, secretsKey } from '@broker/engine/contract/secrets';
import type { Sql } from '~/shared/db.server.ts';
import { refuse, type Result } from '~/shared/result.server.ts';
import { env } from '~/shared/env.server.ts';
import { invalidateCached } from '~/shared/live-cache.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { resolveAppUrl } from '~/modules/email/app-url.server.ts';
import { settingsDefaults, settingsSchemas, type Settings, type SettingsKey } from '~/shared/settings-schema.ts';
import { getSettings } from '~/shared/settings.server.ts';
import { currencyList, SETTING_SWITCHES, type SettingsFileField, type SiteSettingsInput, type SiteSettingsView } from './site-settings.ts';

const KEYS = ['branding', 'favicon', 'authBackground', 'whatsapp', 'kyc', 'recaptcha', 'pricingPlan', 'emailVerify',
  'showUserInfoAgent', 'theme', 'webhookApiKeyLeads', 'approvals', 'twoFactor'] as const;
type All = { [K in (typeof KEYS)[number]]: Settings<K> };

const key = () => secretsKey(env().SECRETS_KEY);
/** A stored secret in clear ('' when none, or when it cannot be decrypted with this SECRETS_KEY). */
function reveal(stored: string): string {
  if (!stored) return '';
  try { return decryptSecret(stored, key()); } catch { return ''; }
}
const secretView = (stored: string) => { const plain = reveal(stored); return { set: !!stored, masked: plain ? maskSecret(plain) : stored ? '••••' : '' }; };

export async function readSiteSettings(sql: Sql): Promise<SiteSettingsView> {
  const s = await getSettings(sql, KEYS);
  const on = (v: string) => v === 'on';
  const switches = {
    kycDeposit: on(s.kyc.deposit), kycWithdraw: on(s.kyc.withdraw), kycTrade: on(s.kyc.trade),
    recaptchaEnabled: on(s.recaptcha.enabled), pricingPlan: on(s.pricingPlan.enabled), emailVerify: on(s.emailVerify.enabled),
    showUserInfoAgent: on(s.showUserInfoAgent.enabled), revealSales: on(s.showUserInfoAgent.revealSales),
    revealRetention: on(s.showUserInfoAgent.revealRetention), darkTheme: s.theme.mode === 'dark', staffTwoFactor: on(s.twoFactor.staffRequired),
  };
  return {
    appName: s.branding.appName,
    // the stored value only: the default filled in here would be saved as if typed
    appUrl: s.branding.appUrl,
    appUrlDefault: resolveAppUrl(''),
    appCurrency: s.branding.currencies.join(', '),
    demoInitialBalance: s.branding.demoInitialBalance,
    secondApprovalAbove: s.approvals.secondApprovalAbove,
    recaptchaSiteKey: s.recaptcha.siteKey,
    whatsapp: s.whatsapp.number,
    recaptchaSecret: secretView(s.recaptcha.secretKey),
    webhookApiKey: secretView(s.webhookApiKeyLeads.key),
    files: { logo: s.branding.logoPath, favicon: s.favicon.path, authBackground: s.authBackground.path },
    switches,
  };
}


/** The audit's copy of the settings: secrets replaced by their mask. */
function forAudit(v: All) {
  return {
    ...v,
    recaptcha: { ...v.recaptcha, secretKey: v.recaptcha.secretKey ? maskSecret(reveal(v.recaptcha.secretKey)) || '••••' : '' },
    webhookApiKeyLeads: { key: v.webhookApiKeyLeads.key ? maskSecret(reveal(v.webhookApiKeyLeads.key)) || '••••' : '' },
  };
}

/**
 * Saves the form. `files` are the uploads this request stored (their ids): a new one replaces the
 * picture, the remove box clears it, otherwise the stored one stays.
 */
export async function saveSiteSettings(sql: Sql, input: SiteSettingsInput, files: Partial<Record<SettingsFileField, number>>, who: { actorId: number; ip: string | null }): Promise<Result> {
  const sw = Object.fromEntries(SETTING_SWITCHES.map((k) => [k, input[k] === 'on'])) as Record<(typeof SETTING_SWITCHES)[number], boolean>;
  const onOff = (b: boolean) => (b ? 'on' : 'off') as 'on' | 'off';
  const out = await sql.begin(async (tx): Promise<Result> => {
    // the stored rows, locked: two saves at once apply one after the other
    const rows = await tx`SELECT key, value FROM site_settings WHERE key IN ${tx(KEYS as unknown as string[])} FOR UPDATE`;
    const stored = new Map(rows.map((r) => [r.key as string, r.value]));
    const before = Object.fromEntries(KEYS.map((k) => {
      const v = stored.get(k);
      const merged = v && typeof v === 'object' ? { ...settingsDefaults[k], ...(v as object) } : settingsDefaults[k];
      const p = settingsSchemas[k].safeParse(merged);
      return [k, p.success ? p.data : settingsDefaults[k]];
    })) as All;

    // empty, or the masked form sent back unchanged, keeps the stored secret
    const newSecret = (typed: string, clear: boolean, current: string) =>
      (typed && !isMaskedSecret(typed) ? encryptSecret(typed, key()) : clear ? '' : current);
    const recaptchaSecret = newSecret(input.recaptchaSecret, input.recaptchaSecretClear === 'on', before.recaptcha.secretKey);
    if (sw.recaptchaEnabled && (!input.recaptchaSiteKey || !recaptchaSecret)) {
      return refuse(400, 'Recaptcha needs the client key and the secret key', input.recaptchaSiteKey ? 'recaptchaSecret' : 'recaptchaSiteKey');
    }
    const path = (f: SettingsFileField, clear: string | undefined, current: string | null) =>
      files[f] ? `/uploads/${files[f]}` : clear === 'on' ? null : current;

    const after: All = {
      branding: {
        appName: input.appName, appUrl: input.appUrl.replace(/\/+$/, ''), currencies: currencyList(input.appCurrency),
        demoInitialBalance: input.demoInitialBalance, logoPath: path('logo', input.logoClear, before.branding.logoPath),
      },
      favicon: { path: path('favicon', input.faviconClear, before.favicon.path) },
      authBackground: { path: path('authBackground', input.authBackgroundClear, before.authBackground.path) },
      whatsapp: { number: input.whatsapp },
      kyc: { deposit: onOff(sw.kycDeposit), withdraw: onOff(sw.kycWithdraw), trade: onOff(sw.kycTrade) },
      recaptcha: { siteKey: input.recaptchaSiteKey, secretKey: recaptchaSecret, enabled: onOff(sw.recaptchaEnabled) },
      pricingPlan: { enabled: onOff(sw.pricingPlan) },
      emailVerify: { enabled: onOff(sw.emailVerify) },
      showUserInfoAgent: { enabled: onOff(sw.showUserInfoAgent), revealSales: onOff(sw.revealSales), revealRetention: onOff(sw.revealRetention) },
      theme: { mode: sw.darkTheme ? 'dark' : 'light' },
      webhookApiKeyLeads: { key: newSecret(input.webhookApiKey, input.webhookApiKeyClear === 'on', before.webhookApiKeyLeads.key) },
      approvals: { secondApprovalAbove: input.secondApprovalAbove },
      twoFactor: { staffRequired: onOff(sw.staffTwoFactor) },
    };
    const changed = KEYS.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    if (!changed.length) return { ok: true };
    for (const k of changed) {
      const value = settingsSchemas[k].parse(after[k]);
      await tx`INSERT INTO site_settings (key, value, updated_by) VALUES (${k}, ${tx.json(value as never)}, ${who.actorId})
               ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now(), updated_by = EXCLUDED.updated_by`;
    }
    const a = forAudit(before), b = forAudit(after);
    await audit(tx, {
      actorId: who.actorId, action: 'settings.update', targetKind: 'site_settings', targetId: changed.join(','),
      before: Object.fromEntries(changed.map((k) => [k, a[k as SettingsKey & keyof All]])),
      after: Object.fromEntries(changed.map((k) => [k, b[k as SettingsKey & keyof All]])),
      ip: who.ip,
    });
    return { ok: true };
  });
  // this process's copy at once; the trigger's NOTIFY drops every other process's
  if (out.ok) invalidateCached(sql, 'site_settings');
  return out;
}
