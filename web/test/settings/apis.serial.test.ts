// /admin/apis and /admin/status/api through the route modules against PostgreSQL (serial: the
// api_settings rows are site-wide, put back afterwards): admin only, the required fields, keys
// encrypted and never in the loader's JSON or the audit, the OANDA practice switch, the engine
// told through engine_cache, and the health rows driven by heartbeats.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decryptSecret, isEncrypted, secretsKey } from '@broker/engine/contract/secrets';
import * as apis from '~/routes/_staff.admin.apis.tsx';
import * as apiStatus from '~/routes/_staff.admin.status.api.tsx';
import { loader as ticket } from '~/routes/dashboard.ticket.ts';
import { maySubscribe, verifyTicket } from '@broker/engine/contract/ticket';
import { env } from '~/shared/env.server.ts';
import { applyHeartbeat, expireHealth, initialHealth, STALE_MESSAGE, STALE_MS } from '~/modules/status/health.ts';
import { createUser, get, post, sessionFor, testSql } from '../helpers.ts';
import { answer, fieldErrors } from '../catalog/helpers.ts';

const sql = testSql(4);
let admin: { id: number; cookie: string };
let saved: Record<string, unknown>[] = [];

beforeAll(async () => {
  saved = await sql`SELECT * FROM api_settings`;
  await sql`DELETE FROM api_settings`;
  const u = await createUser(sql, { roleId: 1 });
  admin = { id: u.id, cookie: (await sessionFor(sql, u.id)).cookie };
});
afterAll(async () => {
  await sql`DELETE FROM api_settings`;
  for (const r of saved) await sql`INSERT INTO api_settings ${sql(r as Record<string, never>)}`;
  await sql.end();
});

const act = (body: Record<string, string>, cookie = admin.cookie) =>
  answer(apis.action({ request: post('/admin/apis', body, { cookie }), params: {}, context: {} }));
const load = (cookie = admin.cookie) => answer(apis.loader({ request: get('/admin/apis', cookie), params: {}, context: {} }));
const row = async (key: string) => (await sql`SELECT value1, value2, value3 FROM api_settings WHERE key = ${key}`)[0];
const reveal = (v: string) => decryptSecret(v, secretsKey(env().SECRETS_KEY));
const lastAudit = async () => (await sql`SELECT actor_id, target_id, before, after FROM audit_events WHERE target_kind = 'api_settings' ORDER BY id DESC LIMIT 1`)[0];

describe('data-provider settings', () => {
  test('only the admin opens or saves them', async () => {
    for (const roleId of [2, 3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      expect((await load(cookie)).status, `role ${roleId}`).toBe(403);
      expect((await act({ intent: 'polygonAPI', value1: 'nope' }, cookie)).status, `role ${roleId}`).toBe(403);
      expect((await answer(apiStatus.loader({ request: get('/admin/status/api', cookie), params: {}, context: {} }))).status).toBe(403);
    }
    expect(await row('polygonAPI')).toBeUndefined();
  });

  test('required keys: the API key of Polygon, EOD and the currency API, OANDA\'s account and key', async () => {
    for (const intent of ['polygonAPI', 'eodAPI', 'currencyAPI']) {
      const r = await act({ intent, value1: '' });
      expect(r.status).toBe(400);
      expect(fieldErrors(r)).toMatchObject({ value1: ['required'] });
    }
    expect(fieldErrors(await act({ intent: 'oandaAPI', value1: '', value2: 'k' }))).toMatchObject({ value1: ['required'] });
    expect(fieldErrors(await act({ intent: 'oandaAPI', value1: '101-1', value2: '' }))).toMatchObject({ value2: ['required'] });
    expect(fieldErrors(await act({ intent: 'oandaAPI', value1: '101 1; DROP', value2: 'k' }))).toMatchObject({ value1: ['Letters, digits and dashes only'] });
    expect((await act({ intent: 'nope', value1: 'x' })).status).toBe(400);
    // voiso's fields are optional
    expect((await act({ intent: 'voiso', value1: '', value2: '' })).body?.ok).toBe(true);
    expect((await sql`SELECT count(*)::int AS n FROM api_settings WHERE key <> 'voiso'`)[0].n).toBe(0);
  });

  test('a key is stored encrypted, never sent back, audited masked; the toast names the provider; the engine is told', async () => {
    const key = 'polygon-key-ABCDEFGHIJ0123456789';
    const notes: string[] = [];
    const listener = await sql.listen('engine_cache', (p) => notes.push(p));
    try {
      const r = await act({ intent: 'polygonAPI', value1: key });
      expect(r.body).toMatchObject({ ok: true, toast: '{{name}} updated successfully', values: { name: 'Polygon API' } });
      expect(JSON.stringify(r.body)).not.toContain(key);
      const stored = await row('polygonAPI');
      expect(isEncrypted(stored.value1)).toBe(true);
      expect(reveal(stored.value1)).toBe(key);
      const json = JSON.stringify((await load()).body);
      expect(json).not.toContain(key);
      expect(json).not.toContain(stored.value1);
      const card = ((await load()).body as unknown as { cards: { key: string; secrets: Record<string, { set: boolean; masked: string }> }[] }).cards.find((c) => c.key === 'polygonAPI')!;
      // the last four characters only (issue 22)
      expect(card.secrets.value1).toEqual({ set: true, masked: '••••6789' });
      const a = await lastAudit();
      expect(a).toMatchObject({ target_id: 'polygonAPI', before: null });
      expect(Number(a.actor_id)).toBe(admin.id);
      expect(JSON.stringify(a)).not.toContain(key);
      expect(a.after.value1).toBe('••••6789');
      const until = Date.now() + 2000;
      while (!notes.some((n) => n.includes('"provider"')) && Date.now() < until) await new Promise((res) => setTimeout(res, 20));
      expect(notes.map((n) => JSON.parse(n))).toContainEqual({ kind: 'provider', key: 'polygonAPI', op: 'insert' });

      // saved with the field empty: the key stays; the remove box clears it
      expect((await act({ intent: 'polygonAPI', value1: '' })).body?.ok).toBe(true);
      expect((await row('polygonAPI')).value1).toBe(stored.value1);
      // saved with the masked form sent back unchanged: the key stays too
      expect((await act({ intent: 'polygonAPI', value1: '••••6789' })).body?.ok).toBe(true);
      expect((await row('polygonAPI')).value1).toBe(stored.value1);
      expect((await act({ intent: 'polygonAPI', value1: '', clear: 'on' })).body?.ok).toBe(true);
      expect((await row('polygonAPI')).value1).toBeNull();
    } finally {
      await listener.unlisten();
    }
  });

  test('OANDA: account, encrypted key and the practice switch (on fxpractice, off fxtrade)', async () => {
    expect((await act({ intent: 'oandaAPI', value1: '101-004-1', value2: 'oanda-token-1234567890', practice: 'on' })).body?.ok).toBe(true);
    let r = await row('oandaAPI');
    expect(r).toMatchObject({ value1: '101-004-1', value3: 'fxpractice' });
    expect(reveal(r.value2)).toBe('oanda-token-1234567890');
    expect((await act({ intent: 'oandaAPI', value1: '101-004-1', value2: '' })).body?.ok).toBe(true);
    r = await row('oandaAPI');
    expect(r.value3).toBe('fxtrade');
    expect(reveal(r.value2)).toBe('oanda-token-1234567890');
    const a = await lastAudit();
    expect(a.before.value3).toBe('fxpractice');
    expect(a.after.value3).toBe('fxtrade');
  });

  test('the currency API: its key, and the quota the engine reads shown read-only as used/total', async () => {
    expect((await act({ intent: 'currencyAPI', value1: 'cur-key-0987654321', value2: '1', })).body?.ok).toBe(true);
    // the engine writes value2 remaining and value3 limit; a save of the card never overwrites them
    await sql`UPDATE api_settings SET value2 = '240', value3 = '300' WHERE key = 'currencyAPI'`;
    expect((await act({ intent: 'currencyAPI', value1: '' })).body?.ok).toBe(true);
    expect(await row('currencyAPI')).toMatchObject({ value2: '240', value3: '300' });
    const card = ((await load()).body as unknown as { cards: { key: string; quota: unknown }[] }).cards.find((c) => c.key === 'currencyAPI')!;
    expect(card.quota).toEqual({ used: 60, total: 300, remaining: 240 });
    const status = await answer(apiStatus.loader({ request: get('/admin/status/api', admin.cookie), params: {}, context: {} }));
    expect(status.body).toEqual({ currency: { configured: true, quota: { used: 60, total: 300, remaining: 240 } } });
    expect(JSON.stringify(status.body)).not.toContain('cur-key');
  });
});

describe('health rows', () => {
  test('the page\'s stream ticket: staff get the heartbeat topic, anyone else is refused', async () => {
    const res = (await ticket({ request: get('/dashboard/ticket?topics=heartbeat', admin.cookie), params: {}, context: {} })) as Response;
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.topics).toBe('heartbeat');
    const claims = verifyTicket(env().ENGINE_SECRET, body.ticket)!;
    expect(maySubscribe(claims, 'heartbeat')).toBe(true); // the engine lets this ticket follow it
    for (const roleId of [3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      const r = (await ticket({ request: get('/dashboard/ticket?topics=heartbeat', cookie), params: {}, context: {} })) as Response;
      expect(r.status, `role ${roleId}`).toBe(403);
    }
  });

  test('start N/A Checking; a heartbeat turns its row Connected or Disconnected with the message', () => {
    let rows = initialHealth();
    expect(Object.values(rows).every((r) => r.status === 'checking' && r.msg === 'N/A')).toBe(true);
    rows = applyHeartbeat(rows, { api: 'polygonForex', success: true, msg: 'subscribed to 12 pairs' }, 1000);
    rows = applyHeartbeat(rows, { api: 'eodStock', success: false, msg: 'not configured' }, 2000);
    expect(rows.polygonForex).toEqual({ status: 'connected', msg: 'subscribed to 12 pairs', at: 1000 });
    expect(rows.eodStock).toEqual({ status: 'disconnected', msg: 'not configured', at: 2000 });
    expect(rows.oandaRest.status).toBe('checking');
    // a later failure turns a connected row red
    rows = applyHeartbeat(rows, { api: 'polygonForex', success: false, msg: 'authentication failed' }, 3000);
    expect(rows.polygonForex.status).toBe('disconnected');
    // anything else is ignored
    for (const bad of [null, {}, { api: 'simulator', success: true }, { api: 'oandaRest', success: 'yes' }]) expect(applyHeartbeat(rows, bad)).toBe(rows);
    // no heartbeat for a while: back to Checking, never left green
    expect(expireHealth(rows, 2000 + STALE_MS)).toBe(rows);
    const stale = expireHealth(rows, 3000 + STALE_MS + 1);
    expect(stale.eodStock).toEqual({ status: 'checking', msg: STALE_MESSAGE, at: 2000 });
    expect(stale.polygonForex).toEqual({ status: 'checking', msg: STALE_MESSAGE, at: 3000 });
    expect(stale.oandaRest).toEqual({ status: 'checking', msg: 'N/A', at: null });
  });
});
