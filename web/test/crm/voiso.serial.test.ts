// Click-to-call through Voiso (modules/crm/voiso.server.ts), Voiso mocked at the network boundary (msw):
// the request exactly as Voiso documents it (POST https://{cluster}.voiso.com/api/v1/{key}/click2call
// with agent, number in E.164 digits, account_id, crm, get_call_id as query parameters; GET
// …/agents_status), success and the provider's own messages, the lead lists' scope (other ids: 404),
// a masked number calls for an agent and never reaches the browser, the per-user limit and the audit.
// Serial: it writes the site-wide 'voiso' provider row and the agent masking switch; both put back after.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { encryptSecret, secretsKey } from '@broker/engine/contract/secrets';
import { testSql, get, post, settle, unique } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import { db } from '~/shared/db.server.ts';
import { getSetting, setSetting } from '~/shared/settings.server.ts';
import { CALL_LIMIT, CALL_TOASTS, callBlocked, e164Digits, startCall } from '~/modules/crm/voiso.server.ts';
import type { RateLimitStore } from '~/modules/auth/rate-limit.server.ts';
import { action as callAction } from '~/routes/admin.crm.voiso.startCall.ts';
import { loader as agentsLoader } from '~/routes/admin.crm.voiso.agents.ts';
import { crmSupport } from './support.ts';

const sql = testSql();
const { staff, lead, team, list } = crmSupport(sql);
const CLUSTER = 'cc-test';
const KEY = 'a204cf426a66db3f2680f211b29978a10ed78fff247ad35f';

type Seen = { method: string; url: URL; body: string };
let seen: Seen[] = [];
const okReply = () => HttpResponse.json({ call_id: '24f6a191-f0ad-4257-a934-32aa26a51208' });
const okAgents = () => HttpResponse.json([
  { email: 'pt@fg.com', ext: '7777', status: 'available' },
  { email: 'px@fg.com', ext: '5555', status: 'unavailable' },
]);
let reply: () => Response = okReply;
let agentsReply: () => Response = okAgents;

mockServer(
  http.all(`https://${CLUSTER}.voiso.com/*`, async ({ request }) => {
    const url = new URL(request.url);
    seen.push({ method: request.method, url, body: await request.text() });
    if (url.pathname.endsWith('/click2call')) return reply();
    if (url.pathname.endsWith('/agents_status')) return agentsReply();
    return new HttpResponse(null, { status: 404 });
  }),
);

let savedRow: Record<string, unknown> | undefined;
let savedMask: Awaited<ReturnType<typeof getSetting<'showUserInfoAgent'>>>;
beforeAll(async () => {
  [savedRow] = await sql`SELECT * FROM api_settings WHERE key = 'voiso'`;
  savedMask = await getSetting(sql, 'showUserInfoAgent');
  await setVoiso(CLUSTER, KEY);
});
afterEach(() => { seen = []; reply = okReply; agentsReply = okAgents; });
afterAll(async () => {
  await sql`DELETE FROM api_settings WHERE key = 'voiso'`;
  if (savedRow) await sql`INSERT INTO api_settings ${sql(savedRow as Record<string, never>)}`;
  await setSetting(db(), 'showUserInfoAgent', savedMask);
  await sql.end();
});

async function setVoiso(cluster: string | null, key: string | null) {
  const enc = key ? encryptSecret(key, secretsKey(env().SECRETS_KEY)) : null;
  await sql`INSERT INTO api_settings (key, value1, value2) VALUES ('voiso', ${cluster}, ${enc})
            ON CONFLICT (key) DO UPDATE SET value1 = EXCLUDED.value1, value2 = EXCLUDED.value2`;
}

async function call(cookie: string, body: Record<string, string>) {
  const r = await settle(callAction({ request: post('/admin/crm/voiso/startCall', body, { cookie }), params: {}, context: { clientIp: '10.9.8.7' } })) as
    { data: any; init: { status?: number } | null } | Response;
  if (r instanceof Response) return { status: r.status, data: null as any, text: await r.text() };
  return { status: r.init?.status ?? 200, data: r.data, text: JSON.stringify(r.data) };
}

const memoryStore = (): RateLimitStore => {
  const hits = new Map<string, number>();
  return {
    async hit(k) { hits.set(k, (hits.get(k) ?? 0) + 1); return { hits: hits.get(k)!, resetAt: new Date(Date.now() + 60_000) }; },
    async undo(k) { hits.set(k, Math.max(0, (hits.get(k) ?? 0) - 1)); },
    async reset(k) { hits.delete(k); },
  };
};

describe('the click2call request', () => {
  test('an admin calls as the chosen agent: POST to the cluster with the documented query parameters', async () => {
    const admin = await staff(1);
    const id = await lead(unique('vo'), { phone: '+44 7700 900123' });
    const r = await call(admin.cookie, { leadId: String(id), agent: 'pt@fg.com' });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ ok: true, toast: 'Call started successfully' });
    expect(seen).toHaveLength(1);
    const s = seen[0];
    expect(s.method).toBe('POST');
    expect(`${s.url.origin}${s.url.pathname}`).toBe(`https://${CLUSTER}.voiso.com/api/v1/${KEY}/click2call`);
    expect(Object.fromEntries(s.url.searchParams)).toEqual({
      agent: 'pt@fg.com', number: '447700900123', account_id: String(id), crm: 'broker-crm', get_call_id: 'true',
    });
    // the answer names no number
    expect(r.text).not.toContain('900123');
    const [a] = await sql`SELECT actor_id, action, target_kind, target_id, after FROM audit_events WHERE target_kind = 'lead' AND target_id = ${String(id)} AND action = 'crm.voiso.call'`;
    expect(a).toMatchObject({ actor_id: admin.id, after: { agent: 'pt@fg.com', phone: '******23', ok: true, callId: '24f6a191-f0ad-4257-a934-32aa26a51208' } });
    expect(JSON.stringify(a)).not.toContain('900123');
  });

  test("the provider's message is the toast: {errors} and {error}, with the HTTP status Voiso gave or a 200", async () => {
    const admin = await staff(1);
    const id = await lead(unique('vo'));
    reply = () => HttpResponse.json({ errors: 'User not found' }, { status: 400 });
    let r = await call(admin.cookie, { leadId: String(id), agent: '9999' });
    expect(r.status).toBe(502);
    expect(r.data).toMatchObject({ ok: false, toast: 'User not found' });
    reply = () => HttpResponse.json({ error: 'Invalid key' }, { status: 403 });
    r = await call(admin.cookie, { leadId: String(id), agent: '9999' });
    expect(r.data).toMatchObject({ ok: false, toast: 'Invalid key' });
    reply = () => HttpResponse.json({ errors: 'Agent is not logged in' });
    r = await call(admin.cookie, { leadId: String(id), agent: '9999' });
    expect(r.data).toMatchObject({ ok: false, toast: 'Agent is not logged in' });
    reply = () => HttpResponse.error();
    r = await call(admin.cookie, { leadId: String(id), agent: '9999' });
    expect(r.data).toMatchObject({ ok: false, toast: CALL_TOASTS.unreachable });
    const audits = await sql`SELECT after FROM audit_events WHERE action = 'crm.voiso.call' AND target_id = ${String(id)} ORDER BY id`;
    expect(audits.map((x) => x.after.ok)).toEqual([false, false, false, false]);
  });

  test('admins and managers must name the agent; nothing is sent without one', async () => {
    const manager = await staff(2);
    const id = await lead(unique('vo'), { manager: manager.id });
    const r = await call(manager.cookie, { leadId: String(id) });
    expect(r.status).toBe(400);
    expect(r.data).toMatchObject({ ok: false, toast: CALL_TOASTS.noAgent });
    expect(seen).toHaveLength(0);
  });

  test('not configured, or a national number: a clear message and no request', async () => {
    const admin = await staff(1);
    const national = await lead(unique('vo'), { phone: '07700 900123' });
    let r = await call(admin.cookie, { leadId: String(national), agent: '7777' });
    expect(r.data).toMatchObject({ ok: false, toast: CALL_TOASTS.badPhone });
    await setVoiso(null, null);
    try {
      const id = await lead(unique('vo'));
      r = await call(admin.cookie, { leadId: String(id), agent: '7777' });
      expect(r.data).toMatchObject({ ok: false, toast: CALL_TOASTS.notConfigured });
      // a manager cannot open API Settings: told an admin sets it up; the list disables the button with the reason
      const manager = await staff(2);
      const mine = await lead(unique('vo'), { manager: manager.id });
      r = await call(manager.cookie, { leadId: String(mine), agent: '7777' });
      expect(r.data).toMatchObject({ ok: false, toast: CALL_TOASTS.notConfiguredAskAdmin });
      expect(await callBlocked(sql, 2)).toBe(CALL_TOASTS.notConfiguredAskAdmin);
      expect(await callBlocked(sql, 5)).toBe(CALL_TOASTS.notConfiguredAskAdmin);
      expect(await callBlocked(sql, 1)).toBe(CALL_TOASTS.notConfigured);
    } finally {
      await setVoiso(CLUSTER, KEY);
    }
    expect(seen).toHaveLength(0);
  });

  test('E.164 digits: + or 00 and a country code, separators dropped; national numbers refused', () => {
    expect(e164Digits('+44 7700 900123')).toBe('447700900123');
    expect(e164Digits('0049 (151) 2345-6789')).toBe('4915123456789');
    expect(e164Digits('07700 900123')).toBeNull(); // national, no country to read it in
    expect(e164Digits('07700 900123', 'GB')).toBe('447700900123');
    expect(e164Digits('07700 900123', 'United Kingdom')).toBe('447700900123');
    expect(e164Digits('+0 123 456 789')).toBeNull();
    expect(e164Digits('+1 23')).toBeNull();
  });
});

describe('scope and masking', () => {
  test("an agent calls only their own leads (others 404, nothing sent); a manager only their teams'", async () => {
    const agent = await staff(5);
    const other = await staff(5);
    const manager = await staff(2);
    const mine = await lead(unique('vo'), { agent: agent.id });
    const theirs = await lead(unique('vo'), { agent: other.id });
    for (const leadId of [String(theirs), '999999999999', 'abc', '-1']) {
      expect((await call(agent.cookie, { leadId })).status).toBe(404);
    }
    expect((await call(manager.cookie, { leadId: String(mine), agent: '7777' })).status).toBe(404);
    expect(seen).toHaveLength(0);
    await team(manager.id, [agent.id]);
    expect((await call(manager.cookie, { leadId: String(mine), agent: '7777' })).status).toBe(200);
    // a deleted lead is gone
    await sql`UPDATE leads SET deleted_at = now() WHERE id = ${mine}`;
    expect((await call(agent.cookie, { leadId: String(mine) })).status).toBe(404);
  });

  test('masking off: the agent sees ******23, the call still dials the full number as the agent, and no answer holds it', async () => {
    const agent = await staff(5);
    const ret = await staff(6);
    const tok = unique('vo');
    const id = await lead(tok, { agent: agent.id, phone: '+44 7700 900123' });
    const rid = await lead(tok, { group: 'retentions', ret: ret.id, phone: '+49 151 2345 6789' });
    await setSetting(db(), 'showUserInfoAgent', { enabled: 'off', revealSales: 'off', revealRetention: 'off' });
    const l = await list(`/admin/crm/sales/all?search=${tok}`, agent.cookie);
    expect(l.data.rows[0]).toMatchObject({ id, phone: '******23' });
    // an agent's chosen 'agent' is ignored: they call as themselves
    const r = await call(agent.cookie, { leadId: String(id), agent: 'someone-else@fg.com' });
    expect(r.data).toMatchObject({ ok: true, toast: 'Call started successfully' });
    expect(r.text).not.toMatch(/7700|900123/);
    expect(Object.fromEntries(seen[0].url.searchParams)).toMatchObject({ agent: agent.email, number: '447700900123', account_id: String(id) });
    const r2 = await call(ret.cookie, { leadId: String(rid) });
    expect(r2.data).toMatchObject({ ok: true });
    expect(Object.fromEntries(seen[1].url.searchParams)).toMatchObject({ agent: ret.email, number: '4915123456789' });
  });

  test('roles outside the map (affiliate, customer) are refused before anything is read', async () => {
    const id = await lead(unique('vo'));
    for (const role of [3, 4]) {
      const u = await staff(role);
      expect((await call(u.cookie, { leadId: String(id), agent: '7777' })).status).toBe(403);
    }
    expect(seen).toHaveLength(0);
  });

  test('a user may start CALL_LIMIT calls a minute; the next is refused without a request', async () => {
    const admin = await staff(1);
    const id = await lead(unique('vo'));
    const store = memoryStore();
    for (let i = 0; i < CALL_LIMIT.max; i++) {
      expect(await startCall(sql, { id: admin.id, roleId: 1 }, id, '7777', { store })).toMatchObject({ ok: true });
    }
    expect(await startCall(sql, { id: admin.id, roleId: 1 }, id, '7777', { store })).toEqual({ ok: false, status: 429, message: CALL_TOASTS.tooMany });
    expect(seen).toHaveLength(CALL_LIMIT.max);
  });
});

describe('GET /admin/crm/voiso/agents', () => {
  async function agents(cookie: string) {
    const r = await settle(agentsLoader({ request: get('/admin/crm/voiso/agents', cookie), params: {}, context: {} })) as { data: any } | Response;
    return r instanceof Response ? { status: r.status, data: null as any } : { status: 200, data: r.data };
  }

  test("admins and managers get Voiso's agents from GET …/agents_status; agents are refused", async () => {
    const admin = await staff(1);
    const r = await agents(admin.cookie);
    expect(r.data).toEqual({ ok: true, agents: [
      { email: 'pt@fg.com', ext: '7777', status: 'available' },
      { email: 'px@fg.com', ext: '5555', status: 'unavailable' },
    ] });
    expect(seen[0].method).toBe('GET');
    expect(`${seen[0].url.origin}${seen[0].url.pathname}`).toBe(`https://${CLUSTER}.voiso.com/api/v1/${KEY}/agents_status`);
    expect((await agents((await staff(2)).cookie)).data.ok).toBe(true);
    expect((await agents((await staff(5)).cookie)).status).toBe(403);
    agentsReply = () => HttpResponse.json({ error: 'Invalid key' }, { status: 401 });
    expect((await agents(admin.cookie)).data).toEqual({ ok: false, message: 'Invalid key' });
  });
});
