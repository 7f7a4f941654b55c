// The broker's own leads webhook key (docs/specs.md#settings-and-providers, site settings, stored encrypted): it posts leads
// from the broker's landing pages (no affiliate, live leads), cannot list leads, and a cleared or
// changed setting refuses the old key at once. Serial: it changes a site-wide setting.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { encryptSecret, secretsKey } from '@broker/engine/contract/secrets';
import { env } from '~/shared/env.server.ts';
import { getSetting, setSetting } from '~/shared/settings.server.ts';
import { DUPLICATE_MESSAGE, getLeads, postLeads } from '~/modules/affiliates/leads-api.server.ts';
import { postgresStore, testSql, unique } from '../helpers.ts';
import { apiGet, apiPost, lead } from './support.ts';

const sql = testSql();
const store = postgresStore(sql);
let before: { key: string };
const webhookKey = unique('whk-secret-');

beforeAll(async () => {
  before = await getSetting(sql, 'webhookApiKeyLeads');
  await setSetting(sql, 'webhookApiKeyLeads', { key: encryptSecret(webhookKey, secretsKey(env().SECRETS_KEY)) });
});
afterAll(async () => {
  await setSetting(sql, 'webhookApiKeyLeads', before);
  await sql.end();
});

describe('the leads webhook key', () => {
  test('posts a live lead of no affiliate (the Live Leads screen), with duplicates by the same rules', async () => {
    const l = lead();
    const r = await postLeads(sql, apiPost(webhookKey, l), { store });
    expect(r.status).toBe(201);
    const { id } = await r.json();
    const [row] = await sql`SELECT affiliate_id, is_live, "group" FROM leads WHERE id = ${id}`;
    expect(row).toEqual({ affiliate_id: null, is_live: true, group: 'sales' });
    // a duplicate never names a lead to the webhook (it is no affiliate's)
    expect(await (await postLeads(sql, apiPost(webhookKey, lead({ email: l.email })), { store })).json()).toEqual({ status: 'duplicate', reason: 'email', message: DUPLICATE_MESSAGE });
    expect((await getLeads(sql, apiGet(webhookKey), { store })).status).toBe(403);
  });

  test('a wrong or cleared key is refused', async () => {
    expect((await postLeads(sql, apiPost(`${webhookKey}x`, lead()), { store })).status).toBe(401);
    await setSetting(sql, 'webhookApiKeyLeads', { key: '' });
    expect((await postLeads(sql, apiPost(webhookKey, lead()), { store })).status).toBe(401);
    expect((await postLeads(sql, apiPost('', lead()), { store })).status).toBe(401);
    await setSetting(sql, 'webhookApiKeyLeads', { key: encryptSecret(webhookKey, secretsKey(env().SECRETS_KEY)) });
  });
});
