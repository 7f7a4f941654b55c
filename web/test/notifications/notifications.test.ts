// The notifications pages (/notifications, /admin/notifications) and the bell's posts, through the
// route modules against PostgreSQL: the signed-in user's own notifications a page at a time; opening
// one marks it read and goes to its stored url; 'Mark all read'; the layout's unread count; another
// user's notification id is refused and changes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { action as clientAction, loader as clientLoader } from '~/routes/_client.notifications.tsx';
import { action as staffAction, loader as staffLoader } from '~/routes/_staff.admin.notifications.tsx';
import { loadShell } from '~/modules/shell/shell.server.ts';
import { currentSession } from '~/modules/auth/guards.server.ts';
import type { NotificationsData } from '~/modules/notifications/notifications-page.tsx';
import { createUser, get, post, sessionFor, testSql, type TestUser } from '../helpers.ts';
import { answer } from '../catalog/helpers.ts';

const sql = testSql(5);
afterAll(() => sql.end());

interface Who extends TestUser { cookie: string }
async function userWith(n: number, roleId = 3): Promise<Who> {
  const u = await createUser(sql, { roleId });
  if (n) {
    await sql`INSERT INTO notifications (user_id, title, description, url)
              SELECT ${u.id}, 'Note ' || i, 'Text ' || i, CASE WHEN i % 2 = 0 THEN '/statements?from=' || i END FROM generate_series(1, ${n}) i`;
  }
  return { ...u, cookie: (await sessionFor(sql, u.id)).cookie };
}
const ids = async (userId: number) => (await sql`SELECT id FROM notifications WHERE user_id = ${userId} ORDER BY id`).map((r) => Number(r.id));
const unreadOf = async (userId: number) => (await sql`SELECT count(*)::int AS n FROM notifications WHERE user_id = ${userId} AND read_at IS NULL`)[0].n as number;

const load = async (who: Who, query = '', path = '/notifications') => {
  const fn = path === '/notifications' ? clientLoader : staffLoader;
  const r = await answer(fn({ request: get(`${path}${query}`, who.cookie), params: {}, context: {} }));
  return { status: r.status, body: r.body as unknown as NotificationsData };
};
const act = (who: Who, body: Record<string, string>, path = '/notifications') => {
  const fn = path === '/notifications' ? clientAction : staffAction;
  return answer(fn({ request: post(path, body, { cookie: who.cookie }), params: {}, context: {} }));
};

let alice: Who, bob: Who;
beforeAll(async () => {
  alice = await userWith(20);
  bob = await userWith(3);
});

describe('the page', () => {
  test('the user\'s own notifications, newest first, 15 a page, with the unread count', async () => {
    let r = await load(alice);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 20, unread: 20 });
    expect(r.body.rows).toHaveLength(15);
    expect(r.body.rows[0]).toMatchObject({ title: 'Note 20', description: 'Text 20', url: '/statements?from=20', read: false });
    r = await load(alice, '?page=2');
    expect(r.body.rows.map((n) => n.title)).toEqual(['Note 5', 'Note 4', 'Note 3', 'Note 2', 'Note 1']);
    r = await load(alice, '?limit=50');
    expect(r.body.rows).toHaveLength(20);
    expect(r.body.rows.every((n) => ['Note'].includes(n.title.split(' ')[0]))).toBe(true);
  });

  test('staff have theirs at /admin/notifications; a customer is refused there', async () => {
    // an agent: admins and managers also hear of every customer's request other tests make meanwhile
    const manager = await userWith(2, 5);
    const r = await load(manager, '', '/admin/notifications');
    expect(r.body).toMatchObject({ total: 2, unread: 2 });
    expect((await load(alice, '', '/admin/notifications')).status).toBe(403);
    expect((await act(alice, { intent: 'readAll' }, '/admin/notifications')).status).toBe(403);
    expect(await unreadOf(alice.id)).toBe(20);
  });
});

describe('marking read', () => {
  test('one without a url is marked read in place; the layout\'s badge counts one less', async () => {
    const who = await userWith(3);
    const [first] = await ids(who.id); // 'Note 1' has no url
    const r = await act(who, { intent: 'read', id: String(first) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true });
    expect(await unreadOf(who.id)).toBe(2);
    const session = (await currentSession(get('/dashboard', who.cookie), sql))!;
    const shell = await loadShell(sql, session);
    expect(shell.unread).toBe(2);
    expect(shell.notifications.find((n) => n.id === first)?.read).toBe(true);
  });

  test('opening one with a url marks it read and goes to its stored url (never one from the form)', async () => {
    const who = await userWith(2);
    const [, second] = await ids(who.id); // 'Note 2' has a url
    const r = await act(who, { intent: 'read', id: String(second), open: '1', redirectTo: 'https://evil.example/' });
    expect(r.status).toBe(302);
    const res = await clientAction({ request: post('/notifications', { intent: 'read', id: String(second), open: '1' }, { cookie: who.cookie }), params: {}, context: {} }) as Response;
    expect(res.headers.get('location')).toBe('/statements?from=2');
    expect(await unreadOf(who.id)).toBe(1);
  });

  test('a stored url that leaves the site is not followed', async () => {
    const who = await userWith(0);
    const [n] = await sql`INSERT INTO notifications (user_id, title, url) VALUES (${who.id}, 'x', '//evil.example/') RETURNING id`;
    const res = await clientAction({ request: post('/notifications', { intent: 'read', id: String(n.id), open: '1' }, { cookie: who.cookie }), params: {}, context: {} }) as Response;
    expect(res.headers.get('location')).toBe('/');
  });

  test('another user\'s notification is refused and changes nothing', async () => {
    const [theirs] = await ids(bob.id);
    const r = await act(alice, { intent: 'read', id: String(theirs), open: '1' });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ ok: false, toast: 'Notification not found' });
    expect(await unreadOf(bob.id)).toBe(3);
    for (const id of ['0', '-1', 'abc', '99999999999999999999']) {
      expect((await act(alice, { intent: 'read', id })).status, id).toBe(400);
    }
    expect((await act(alice, { intent: 'nope' })).status).toBe(400);
  });

  test('Mark all read marks every one of the user\'s and no one else\'s', async () => {
    const who = await userWith(17);
    const r = await act(who, { intent: 'readAll' });
    expect(r.body).toMatchObject({ ok: true, toast: 'Notifications marked as read', values: { count: 17 } });
    expect(await unreadOf(who.id)).toBe(0);
    expect(await unreadOf(bob.id)).toBe(3);
    expect((await load(who)).body.unread).toBe(0);
    // again: nothing to do, no toast
    expect((await act(who, { intent: 'readAll' })).body).toMatchObject({ ok: true, toast: null });
  });

  test('a request from another site is refused', async () => {
    const res = await answer(clientAction({ request: post('/notifications', { intent: 'readAll' }, { cookie: bob.cookie, origin: 'https://evil.example' }), params: {}, context: {} }));
    expect(res.status).toBe(403);
    expect(await unreadOf(bob.id)).toBe(3);
  });
});
