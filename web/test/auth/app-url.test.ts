// Links in e-mails (verify, reset) point at the app's real address: the site settings' App URL
// when set, else APP_URL, else the address `npm start` serves on. Never a hard-coded host.
import { afterAll, describe, expect, test } from 'vitest';
import { testSql, createUser, linkFromOutbox } from '../helpers.ts';
import { resolveAppUrl } from '~/modules/email/app-url.server.ts';
import { loadAuthConfig, sendVerificationEmail, type AuthConfig } from '~/modules/auth/auth.server.ts';
import { settingsDefaults } from '~/shared/settings-schema.ts';
import { demoSettings } from '../../../seeds/demo.ts';

const sql = testSql();
afterAll(() => sql.end());

describe('the app URL of e-mail links', () => {
  test.each([
    ['https://broker.example/', { APP_URL: 'http://10.0.0.5:8080', PORT: '3100' }, 'https://broker.example'],
    ['', { APP_URL: 'http://10.0.0.5:8080/', PORT: '3100' }, 'http://10.0.0.5:8080'],
    ['  ', { APP_URL: '', PORT: '3100' }, 'http://127.0.0.1:3100'],
    ['', {}, 'http://127.0.0.1:3000'],
  ])('setting %j, env %j → %s', (setting, e, want) => {
    expect(resolveAppUrl(setting, e)).toBe(want);
  });

  test('neither the defaults nor the demo data hard-code an address', () => {
    expect(settingsDefaults.branding.appUrl).toBe('');
    expect((demoSettings.branding as { appUrl: string }).appUrl).toBe('');
  });

  test('the auth flows take their link base from the resolver', async () => {
    const [row] = await sql`SELECT value->>'appUrl' AS url FROM site_settings WHERE key = 'branding'`;
    expect((await loadAuthConfig(sql)).appUrl).toBe(resolveAppUrl(row?.url ?? ''));
  });

  test('the verification mail carries a link on the resolved address', async () => {
    const u = await createUser(sql, { verified: false });
    const cfg = { appName: 'Test Broker', appUrl: resolveAppUrl('', { APP_URL: 'http://127.0.0.1:3999' }) } as AuthConfig;
    await sendVerificationEmail(sql, cfg, u.id, u.email);
    expect(await linkFromOutbox(sql, u.email, /(http:\/\/127\.0\.0\.1:3999)\/verify-email\/\S+/)).toBe('http://127.0.0.1:3999');
  });
});
