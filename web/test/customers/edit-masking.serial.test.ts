// A sales agent on the Edit Customer page (docs/specs.md#agent-masking, docs/specs.md#customer-records): while 'Show Email & Phone in
// Agent Dashboard' (showUserInfoAgent) is off the email and phone are masked on the server and a
// save keeps the stored ones whatever is posted; on, the agent sees and edits them. Changes the
// site-wide setting, so it runs serially.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { getSetting, setSetting } from '~/shared/settings.server.ts';
import * as editRoute from '~/routes/_staff.admin.customers.edit.$id.tsx';
import { maskEmail } from '~/shared/mask.ts';
import { createUser, get, post, sessionFor, settle, testSql, uniqueIp } from '../helpers.ts';

const sql = testSql();
let before: Awaited<ReturnType<typeof getSetting<'showUserInfoAgent'>>>;
beforeAll(async () => { before = await getSetting(db(), 'showUserInfoAgent'); });
afterAll(async () => {
  await setSetting(db(), 'showUserInfoAgent', before);
  await sql.end();
});

const load = (request: Request, id: number) =>
  settle(Promise.resolve().then(() => editRoute.loader({ request, params: { id: String(id) }, context: {} } as LoaderFunctionArgs)));
const act = (request: Request, id: number) =>
  settle(Promise.resolve().then(() => editRoute.action({ request, params: { id: String(id) }, context: { clientIp: uniqueIp() } } as ActionFunctionArgs)));

async function setup() {
  const agent = await createUser(sql, { roleId: 5 });
  const { cookie } = await sessionFor(sql, agent.id);
  const c = await createUser(sql);
  await sql`INSERT INTO profiles (user_id, phone, country) VALUES (${c.id}, '+33 6 12 34 56 78', 'France')`;
  await sql`INSERT INTO leads (email, user_id, agent_id) VALUES (${c.email}, ${c.id}, ${agent.id})`;
  return { cookie, c };
}

describe('sales agent and showUserInfoAgent', () => {
  test('off: masked in the loader; a save keeps the stored email and phone', async () => {
    await setSetting(db(), 'showUserInfoAgent', { enabled: 'off', revealSales: 'off', revealRetention: 'off' });
    const { cookie, c } = await setup();
    const r = await load(get(`/admin/customers/edit/${c.id}`, cookie), c.id);
    const json = JSON.stringify(r);
    expect(json).not.toContain(c.email);
    expect(json).not.toContain('12 34 56 78');
    expect((r as { customer: { email: string; phone: string } }).customer).toMatchObject({ email: maskEmail(c.email), phone: '******78' });
    expect((r as { access: { canEdit: boolean; masked: boolean } }).access).toMatchObject({ canEdit: true, masked: true });
    // the agent's form has the profile fields only (the account fields are the back-office's, edit.test.ts)
    const saved = await act(post(`/admin/customers/edit/${c.id}`, {
      intent: 'profile', fullName: 'Agent Edit', email: 'hijack@test.broker', phone: '000', country: 'France',
    }, { cookie }), c.id);
    expect((saved as { data?: { ok: boolean } }).data?.ok).toBe(true);
    const [u] = await sql`SELECT u.email, u.full_name, p.phone FROM users u JOIN profiles p ON p.user_id = u.id WHERE u.id = ${c.id}`;
    expect(u).toEqual({ email: c.email, full_name: 'Agent Edit', phone: '+33 6 12 34 56 78' });
  });

  test('on: the agent sees and edits the contact details', async () => {
    await setSetting(db(), 'showUserInfoAgent', { enabled: 'on', revealSales: 'off', revealRetention: 'off' });
    const { cookie, c } = await setup();
    const r = await load(get(`/admin/customers/edit/${c.id}`, cookie), c.id);
    expect((r as { customer: { email: string; phone: string } }).customer).toMatchObject({ email: c.email, phone: '+33 6 12 34 56 78' });
    const email = `agent-${crypto.randomUUID().slice(0, 8)}@test.broker`;
    const saved = await act(post(`/admin/customers/edit/${c.id}`, {
      intent: 'profile', fullName: 'Agent Edit', email, phone: '+33 1 00 00 00 00', country: 'France',
    }, { cookie }), c.id);
    expect((saved as { data?: { ok: boolean } }).data?.ok).toBe(true);
    const [u] = await sql`SELECT u.email, p.phone FROM users u JOIN profiles p ON p.user_id = u.id WHERE u.id = ${c.id}`;
    expect(u).toEqual({ email, phone: '+33 1 00 00 00 00' });
  });
});
