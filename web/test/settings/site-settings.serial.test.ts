// /admin/settings through the route module against PostgreSQL (serial: it changes site-wide
// settings and puts them back): admin only, the 'required' and format messages, secrets encrypted
// at rest and never in the loader's JSON or the audit in full, branding uploads, and switches that
// change other pages at once (sign-in's captcha, the deposits' KYC gate) without a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mockServer } from '../mocks/server.ts';
import { isEncrypted } from '@broker/engine/contract/secrets';
import * as settingsRoute from '~/routes/_staff.admin.settings.tsx';
import * as signInRoute from '~/routes/_auth._index.tsx';
import * as deposits from '~/routes/_client.deposits._index.tsx';
import { db } from '~/shared/db.server.ts';
import { getPublicBranding, getSetting } from '~/shared/settings.server.ts';
import { MESSAGES } from '~/modules/auth/messages.ts';
import { recaptchaCalls, recaptchaHandlers } from '../mocks/recaptcha.ts';
import { createUser, ensureGateways, get, PASSWORD, post, sessionFor, settle, testSql, walletFor } from '../helpers.ts';
import { png, text, uploadRequest, type Part } from '../uploads/fixtures.ts';
import { answer, fieldErrors } from '../catalog/helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'site-settings-'));
process.env.UPLOAD_DIR = dir;

const sql = testSql(4);
mockServer(...recaptchaHandlers);
let admin: { id: number; cookie: string };
let saved: Record<string, unknown>[] = [];

beforeAll(async () => {
  saved = await sql`SELECT key, value, updated_by FROM site_settings`;
  await ensureGateways(sql);
  const u = await createUser(sql, { roleId: 1 });
  admin = { id: u.id, cookie: (await sessionFor(sql, u.id)).cookie };
});
afterAll(async () => {
  await sql.begin(async (tx) => {
    await tx`DELETE FROM site_settings`;
    for (const r of saved) await tx`INSERT INTO site_settings (key, value, updated_by) VALUES (${r.key as string}, ${tx.json(r.value as never)}, ${null})`;
  });
  await sql.end();
  rmSync(dir, { recursive: true, force: true });
});

const valid = (over: Record<string, string | undefined> = {}): Record<string, string> => {
  const base: Record<string, string | undefined> = {
    appName: 'Test Broker', appUrl: 'https://broker.example', appCurrency: 'USD, EUR', demoInitialBalance: '10000',
    secondApprovalAbove: '', recaptchaSiteKey: '', recaptchaSecret: '', whatsapp: '', webhookApiKey: '', pricingPlan: 'on', darkTheme: 'on',
    ...over,
  };
  return Object.fromEntries(Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined));
};
const parts = (fields: Record<string, string>, files: Part[] = []): Part[] => [...Object.entries(fields).map(([name, value]) => ({ name, value })), ...files];
const save = (fields: Record<string, string>, files: Part[] = [], cookie = admin.cookie) =>
  settle(settingsRoute.action({ request: uploadRequest(parts(fields, files), { cookie, path: '/admin/settings' }), params: {}, context: {} }));
const load = (cookie = admin.cookie) => answer(settingsRoute.loader({ request: get('/admin/settings', cookie), params: {}, context: {} }));
const audits = async () => (await sql`SELECT count(*)::int AS n FROM audit_events WHERE target_kind = 'site_settings'`)[0].n as number;
const lastAudit = async () => (await sql`SELECT actor_id, target_id, before, after FROM audit_events WHERE target_kind = 'site_settings' ORDER BY id DESC LIMIT 1`)[0];

async function saved302(fields: Record<string, string>, files: Part[] = []) {
  const r = await save(fields, files);
  expect(r).toBeInstanceOf(Response);
  const res = r as Response;
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toBe('/admin/settings');
  const toast = /toast=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  expect(JSON.parse(Buffer.from(toast!, 'base64url').toString()).title).toBe('Settings updated successfully');
}

describe('site settings', () => {
  test('App URL: the default is shown, not filled in, so saving without typing one stores none', async () => {
    await saved302(valid({ appUrl: '' }));
    type Loaded = { settings: { appUrl: string; appUrlDefault: string } };
    const shown = ((await load()).body as unknown as Loaded).settings;
    expect(shown.appUrl).toBe('');
    expect(shown.appUrlDefault).toMatch(/^https?:\/\//);
    // the form posts what the loader gave: still nothing stored
    await saved302(valid({ appUrl: shown.appUrl }));
    expect((await getSetting(db(), 'branding')).appUrl).toBe('');
    await saved302(valid({ appUrl: 'https://typed.example/' }));
    expect((await getSetting(db(), 'branding')).appUrl).toBe('https://typed.example');
    expect(((await load()).body as unknown as Loaded).settings).toMatchObject({ appUrl: 'https://typed.example' });
  });

  test('only the admin opens or saves them', async () => {
    await saved302(valid());
    for (const roleId of [2, 3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      expect((await load(cookie)).status, `role ${roleId}`).toBe(403);
      expect((await answer(save(valid({ appName: 'Hijacked' }), [], cookie))).status, `role ${roleId}`).toBe(403);
    }
    expect((await getSetting(db(), 'branding')).appName).toBe('Test Broker');
  });

  test("'required' for app name, URL and currency; a bad URL, currency or amount is refused and nothing changes", async () => {
    const before = await audits();
    const r = await answer(save(valid({ appName: '', appUrl: '', appCurrency: '' })));
    expect(r.status).toBe(400);
    expect(fieldErrors(r)).toMatchObject({ appName: ['required'], appCurrency: ['required'] });
    expect(fieldErrors(r).appUrl).toBeUndefined(); // optional: empty is the default
    expect(fieldErrors(await answer(save(valid({ appUrl: 'javascript:alert(1)' }))))).toMatchObject({ appUrl: ['Enter a valid http(s) URL'] });
    expect(fieldErrors(await answer(save(valid({ appUrl: 'ftp://broker.example' }))))).toMatchObject({ appUrl: ['Enter a valid http(s) URL'] });
    expect(fieldErrors(await answer(save(valid({ appCurrency: 'USD, XYZ' }))))).toMatchObject({ appCurrency: ['Use ISO currency codes such as USD, EUR'] });
    expect(fieldErrors(await answer(save(valid({ demoInitialBalance: '-5' }))))).toMatchObject({ demoInitialBalance: ['Enter a non-negative amount'] });
    expect(fieldErrors(await answer(save(valid({ secondApprovalAbove: '1e9' }))))).toMatchObject({ secondApprovalAbove: ['Enter a non-negative amount'] });
    expect((await answer(save(valid({ recaptchaEnabled: 'on' })))).body?.toast).toBe('Recaptcha needs the client key and the secret key');
    expect(await audits()).toBe(before);
    expect((await getSetting(db(), 'branding')).appName).toBe('Test Broker');
  });

  test('texts, numbers and switches are saved, shown at once and audited before and after', async () => {
    await saved302(valid({
      appName: 'Nova Two', appCurrency: 'eur usd', demoInitialBalance: '2500.50', secondApprovalAbove: '1000', whatsapp: '+44 20 7946 0000',
      darkTheme: undefined, kycTrade: 'on', staffTwoFactor: undefined, showUserInfoAgent: 'on',
    }));
    const b = await getPublicBranding(db());
    expect(b).toMatchObject({ appName: 'Nova Two', currencies: ['EUR', 'USD'], theme: 'light', whatsapp: '442079460000' });
    expect(await getSetting(db(), 'approvals')).toEqual({ secondApprovalAbove: '1000' });
    expect(await getSetting(db(), 'kyc')).toEqual({ deposit: 'off', withdraw: 'off', trade: 'on' });
    const view = (await load()).body as unknown as { settings: { appCurrency: string; demoInitialBalance: string; switches: Record<string, boolean> } };
    expect(view.settings).toMatchObject({ appCurrency: 'EUR, USD', demoInitialBalance: '2500.50', switches: { kycTrade: true, darkTheme: false, showUserInfoAgent: true } });
    const a = await lastAudit();
    expect(Number(a.actor_id)).toBe(admin.id);
    expect(a.before.branding.appName).toBe('Test Broker');
    expect(a.after.branding.appName).toBe('Nova Two');
    expect(a.after.theme).toEqual({ mode: 'light' });
  });

  test('secrets are encrypted at rest, masked on the page and in the audit, and kept unless a new value is typed', async () => {
    const secret = 'recaptcha-secret-0123456789abcdefghij', hook = 'leads-hook-key-ZYXWVUTSRQ9876543210';
    await saved302(valid({ recaptchaSiteKey: 'site-key-1', recaptchaSecret: secret, webhookApiKey: hook }));
    const [row] = await sql`SELECT value FROM site_settings WHERE key = 'recaptcha'`;
    expect(isEncrypted(row.value.secretKey)).toBe(true);
    const [hookRow] = await sql`SELECT value FROM site_settings WHERE key = 'webhookApiKeyLeads'`;
    expect(isEncrypted(hookRow.value.key)).toBe(true);

    const json = JSON.stringify((await load()).body);
    expect(json).not.toContain(secret);
    expect(json).not.toContain(hook);
    expect(json).not.toContain(row.value.secretKey); // nor the ciphertext
    const view = (await load()).body as unknown as { settings: { recaptchaSecret: { set: boolean; masked: string } } };
    // the last four characters only (issue 22)
    expect(view.settings.recaptchaSecret).toMatchObject({ set: true, masked: '••••ghij' });
    expect(json).not.toContain('reca•');
    const audit = JSON.stringify(await lastAudit());
    expect(audit).not.toContain(secret);
    expect(audit).not.toContain(hook);
    expect(audit).toContain('••••ghij');
    expect(audit).not.toContain('reca•');

    // the masked forms sent back unchanged: the stored secrets stay
    await saved302(valid({ recaptchaSiteKey: 'site-key-1', recaptchaSecret: '••••ghij', webhookApiKey: '••••3210' }));
    expect((await sql`SELECT value FROM site_settings WHERE key = 'recaptcha'`)[0].value.secretKey).toBe(row.value.secretKey);
    expect((await sql`SELECT value FROM site_settings WHERE key = 'webhookApiKeyLeads'`)[0].value.key).toBe(hookRow.value.key);

    // left empty: the stored secret stays as it was
    await saved302(valid({ recaptchaSiteKey: 'site-key-2' }));
    expect((await sql`SELECT value FROM site_settings WHERE key = 'recaptcha'`)[0].value.secretKey).toBe(row.value.secretKey);
    // a refused form never echoes what was typed
    const refused = await answer(save(valid({ appName: '', recaptchaSecret: 'typed-secret-value-999' })));
    expect(JSON.stringify(refused.body)).not.toContain('typed-secret-value-999');
    // a leads key shorter than 24 characters is refused and changes nothing (issue 22)
    const short = await answer(save(valid({ webhookApiKey: 'short-key-12345' })));
    expect(short.status).toBe(400);
    expect(fieldErrors(short)).toMatchObject({ webhookApiKey: ['The leads API key must be at least 24 characters'] });
    expect((await sql`SELECT value FROM site_settings WHERE key = 'webhookApiKeyLeads'`)[0].value.key).toBe(hookRow.value.key);
    // the remove box clears it
    await saved302(valid({ webhookApiKeyClear: 'on' }));
    expect((await getSetting(db(), 'webhookApiKeyLeads')).key).toBe('');
  });

  test('a logo upload becomes the branding logo; a file that is not a picture changes nothing', async () => {
    const before = (await getSetting(db(), 'branding')).logoPath;
    const bad = await answer(save(valid({ appName: 'Logo Broker' }), [{ name: 'logo', file: text('<svg onload=alert(1)>'), filename: 'x.png', type: 'image/png' }]));
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(Object.keys(fieldErrors(bad))).toContain('logo');
    expect((await getSetting(db(), 'branding')).logoPath).toBe(before);
    expect((await getSetting(db(), 'branding')).appName).not.toBe('Logo Broker');

    await saved302(valid({ appName: 'Logo Broker' }), [{ name: 'logo', file: png(8, 8), filename: 'logo.png', type: 'image/png' }]);
    const b = await getPublicBranding(db());
    expect(b.appName).toBe('Logo Broker');
    expect(b.logoPath).toMatch(/^\/uploads\/\d+$/);
    const [u] = await sql`SELECT kind, owner_id FROM uploads WHERE id = ${Number(b.logoPath!.split('/').pop())}`;
    expect(u).toMatchObject({ kind: 'logo' });
    // saved again without a file: the logo stays; the remove box clears it
    await saved302(valid({ appName: 'Logo Broker' }));
    expect((await getPublicBranding(db())).logoPath).toBe(b.logoPath);
    await saved302(valid({ appName: 'Logo Broker', logoClear: 'on' }));
    expect((await getPublicBranding(db())).logoPath).toBeNull();
  });

  test('flipping reCAPTCHA and KYC changes sign-in and deposits at once', async () => {
    const customer = await createUser(sql);
    const wallet = await walletFor(sql, customer.id);
    const cCookie = (await sessionFor(sql, customer.id)).cookie;
    const signIn = (humanKey?: string) => answer(signInRoute.action({
      request: post('/', { email: customer.email, password: PASSWORD, ...(humanKey ? { humanKey } : {}) }), params: {}, context: {},
    }));

    // on: the sign-in page carries the site key, a sign-in without the captcha is refused
    await saved302(valid({ recaptchaEnabled: 'on', recaptchaSiteKey: 'site-key-on', recaptchaSecret: 'test-secret', kycDeposit: 'on' }));
    expect((await answer(signInRoute.loader({ request: get('/'), params: {}, context: {} }))).body).toMatchObject({ recaptchaSiteKey: 'site-key-on' });
    const refused = await signIn();
    expect(refused.body?.toast).toBe(MESSAGES.captcha);
    const calls = recaptchaCalls.length;
    expect((await signIn('human-ok')).status).toBe(302); // the stored (encrypted) secret is what Google is asked with
    expect(recaptchaCalls.at(-1)?.secret).toBe('test-secret');
    expect(recaptchaCalls.length).toBe(calls + 1);
    // KYC for deposits on: the unverified customer's notice, and the server refuses
    expect((await answer(deposits.loader({ request: get('/deposits', cCookie), params: {}, context: {} }))).body).toMatchObject({ kycNotice: true });
    const dep = await answer(deposits.action({ request: post('/deposits', { balance_id: String(wallet), gateway: 'bank', amount: '50' }, { cookie: cCookie }), params: {}, context: {} }));
    expect(dep).toMatchObject({ status: 403, body: { toast: 'Please verify KYC to enable deposit' } });

    // off again: no captcha, no KYC gate
    await saved302(valid());
    expect((await answer(signInRoute.loader({ request: get('/'), params: {}, context: {} }))).body).toMatchObject({ recaptchaSiteKey: '' });
    expect((await signIn()).status).toBe(302);
    const ok = await answer(deposits.action({ request: post('/deposits', { balance_id: String(wallet), gateway: 'bank', amount: '50' }, { cookie: cCookie }), params: {}, context: {} }));
    expect(ok.status).toBe(302); // on to the bank form: nothing refuses it now
  });

  test('another process sees a save without a restart: the NOTIFY drops its copy', async () => {
    // a second pool stands for a second web process: it cached the settings before the save
    const { enableLiveCache, disableLiveCache, isLiveCacheListening } = await import('~/shared/live-cache.server.ts');
    const other = testSql(2);
    await enableLiveCache(other);
    try {
      expect(isLiveCacheListening(other)).toBe(true); // it keeps a copy: only the notification can refresh it
      expect((await getSetting(other, 'branding')).appName).toBe('Test Broker');
      await saved302(valid({ appName: 'Seen Everywhere' }));
      const until = Date.now() + 3000;
      while ((await getSetting(other, 'branding')).appName !== 'Seen Everywhere' && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
      expect((await getSetting(other, 'branding')).appName).toBe('Seen Everywhere');
    } finally {
      await disableLiveCache(other);
      await other.end();
    }
  });
});
