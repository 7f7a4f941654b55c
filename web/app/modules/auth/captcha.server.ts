// reCAPTCHA v2: the browser's response token (humanKey) is verified on the server.
import type { Sql } from '~/shared/db.server.ts';
import { getSetting } from '~/shared/settings.server.ts';

/** The site key the visitor pages render the widget with; '' when reCAPTCHA is off. */
export async function getRecaptchaSiteKey(sql: Sql): Promise<string> {
  const recaptcha = await getSetting(sql, 'recaptcha');
  return recaptcha.enabled === 'on' ? recaptcha.siteKey : '';
}

export const RECAPTCHA_VERIFY_URL = 'https://www.google.com/recaptcha/api/siteverify';

export interface CaptchaConfig { enabled: boolean; secretKey: string }

export async function verifyCaptcha(cfg: CaptchaConfig, response: string | undefined | null, ip?: string | null): Promise<boolean> {
  if (!cfg.enabled) return true;
  if (!response || !cfg.secretKey) return false;
  const body = new URLSearchParams({ secret: cfg.secretKey, response });
  if (ip) body.set('remoteip', ip);
  try {
    const res = await fetch(RECAPTCHA_VERIFY_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      signal: AbortSignal.timeout(8000),
    });
    if (!res.ok) return false;
    const json = (await res.json()) as { success?: boolean };
    return json.success === true;
  } catch (e) {
    console.error(`[captcha] verification failed: ${(e as Error).message}`);
    return false;
  }
}
