// Tracking (docs/specs.md#customer-records): the client layout records a customer's page visits (one row per URL
// change; never for staff nor while a staff member is signed in as the customer) and publishes
// each on track:{userId}; the Edit Customer page lists them newest first, and /dashboard/ticket
// signs a tracking ticket only for a staff member who may open that customer.
import { afterAll, describe, expect, test } from 'vitest';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { verifyTicket } from '@broker/engine/contract/ticket';
import { env } from '~/shared/env.server.ts';
import * as ticketRoute from '~/routes/dashboard.ticket.ts';
import * as clientLayout from '~/routes/_client.tsx';
import * as editRoute from '~/routes/_staff.admin.customers.edit.$id.tsx';
import { getSession } from '~/modules/auth/session.server.ts';
import { listTracking, recordVisit, visitedUrl, type TrackItem } from '~/modules/customers/tracking.server.ts';
import { createUser, get, sessionFor, settle, testSql } from '../helpers.ts';

const sql = testSql();
afterAll(() => sql.end());

const call = (fn: (a: LoaderFunctionArgs) => unknown, request: Request, params: Record<string, string> = {}) =>
  settle(Promise.resolve().then(() => fn({ request, params, context: {} } as LoaderFunctionArgs)));

async function sessionOf(userId: number, extra: { impersonatorId?: number; parentId?: number } = {}) {
  const s = await sessionFor(sql, userId, extra);
  const current = await getSession(sql, get('/dashboard', s.cookie), null);
  return { ...s, current: current! };
}

describe('recording visits', () => {
  test('the page URL of a document or data request, without Remix\'s own parameters', () => {
    expect(visitedUrl('http://app.test/dashboard')).toBe('/dashboard');
    expect(visitedUrl('http://app.test/statements.data?page=2&_routes=routes%2F_client')).toBe('/statements?page=2');
    expect(visitedUrl('http://app.test/_root.data?_routes=root')).toBe('/');
    expect(visitedUrl(`http://app.test/x?q=${'a'.repeat(3000)}`)).toBeNull();
  });

  test('one row per URL change, published live; none for staff or a login-as session', async () => {
    const c = await createUser(sql);
    const s = await sessionOf(c.id);
    const sent: [number, TrackItem][] = [];
    const publish = async (id: number, item: TrackItem) => { sent.push([id, item]); };
    const visit = (path: string, session = s.current) => recordVisit(sql, session, get(path, s.cookie), publish);
    expect(await visit('/dashboard')).toMatchObject({ url: '/dashboard' });
    expect(await visit('/dashboard.data?_routes=routes%2F_client.dashboard')).toBeNull(); // a revalidation of the same page
    expect(await visit('/profile')).toMatchObject({ url: '/profile' });
    expect(await visit('/dashboard')).toMatchObject({ url: '/dashboard' });
    expect(sent.map(([id, i]) => [id, i.url])).toEqual([[c.id, '/dashboard'], [c.id, '/profile'], [c.id, '/dashboard']]);

    const admin = await createUser(sql, { roleId: 1 });
    const staffSession = await sessionOf(admin.id);
    expect(await recordVisit(sql, staffSession.current, get('/profile'), publish)).toBeNull();
    const asCustomer = await sessionOf(c.id, { impersonatorId: admin.id, parentId: staffSession.id });
    expect(await visit('/statements', asCustomer.current)).toBeNull();
    const [n] = await sql`SELECT count(*)::int AS n FROM tracking_events WHERE user_id = ${c.id}`;
    expect(n.n).toBe(3);

    const list = await listTracking(sql, c.id, { limit: 2, offset: 0 });
    expect(list.total).toBe(3);
    expect(list.rows.map((r) => r.url)).toEqual(['/dashboard', '/profile']);
    expect(list.rows[0].id).toBeGreaterThan(list.rows[1].id);
  });

  test('the client layout records the page (not awaited); the staff page lists it on the Tracking tab', async () => {
    const c = await createUser(sql);
    const s = await sessionOf(c.id);
    expect(await call(clientLayout.loader, get('/kyc', s.cookie))).toBeTruthy();
    let rows: { url: string }[] = [];
    for (let i = 0; i < 40 && rows.length === 0; i++) {
      rows = await sql`SELECT url FROM tracking_events WHERE user_id = ${c.id}`;
      if (!rows.length) await new Promise((r) => setTimeout(r, 50));
    }
    expect(rows.map((r) => r.url)).toEqual(['/kyc']);
    const admin = await createUser(sql, { roleId: 1 });
    const a = await sessionFor(sql, admin.id);
    const page = await call(editRoute.loader, get(`/admin/customers/edit/${c.id}?tab=tracking`, a.cookie), { id: String(c.id) }) as { list: { tab: string; rows: TrackItem[]; total: number } };
    expect(page.list.tab).toBe('tracking');
    expect(page.list.total).toBe(1);
    expect(page.list.rows[0].url).toBe('/kyc');
  });
});

describe('the tracking ticket', () => {
  test('signed for staff who may open the customer, naming them; 404 for anyone else', async () => {
    const c = await createUser(sql);
    const other = await createUser(sql);
    const sales = await createUser(sql, { roleId: 5 });
    await sql`INSERT INTO leads (email, user_id, agent_id) VALUES (${c.email}, ${c.id}, ${sales.id})`;
    const admin = await createUser(sql, { roleId: 1 });
    const ticket = async (userId: number, track: string) => {
      const s = await sessionFor(sql, userId);
      return call(ticketRoute.loader, get(`/dashboard/ticket?track=${track}`, s.cookie));
    };
    for (const staff of [admin, sales]) {
      const r = await ticket(staff.id, String(c.id)) as Response;
      expect(r.status).toBe(200);
      const j = await r.json() as { ticket: string; topics: string };
      expect(j.topics).toBe(`track:${c.id}`);
      expect(verifyTicket(env().ENGINE_SECRET, j.ticket)).toMatchObject({ uid: staff.id, trk: c.id });
    }
    expect(((await ticket(sales.id, String(other.id))) as Response).status).toBe(404);
    expect(((await ticket(c.id, String(c.id))) as Response).status).toBe(404);
    expect(((await ticket(admin.id, 'abc')) as Response).status).toBe(404);
    expect(((await ticket(admin.id, String(admin.id))) as Response).status).toBe(404);
  });
});
