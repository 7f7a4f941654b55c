// Sign-in lives at '/'; the usual spellings people type or old links carry (/login, /signin,
// /sign-in, the same under /admin, in any case, with a trailing slash) go there, keeping the query,
// instead of a 404. The requests meet the real router and route gate (app-build.ts).
import { describe, expect, test } from 'vitest';
import { appHandler } from '../app-build.ts';
import { BASE } from '../helpers.ts';

describe('sign-in aliases', () => {
  test.each([
    '/login', '/LOGIN', '/Login/', '/signin', '/SignIn', '/sign-in', '/Sign-In',
    '/admin/login', '/Admin/Login', '/admin/signin', '/ADMIN/SIGN-IN', '/admin//login',
  ])('%s is a permanent redirect to /', async (path) => {
    const res = await (await appHandler())(new Request(`${BASE}${path}`, { redirect: 'manual' }));
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/');
  });

  test("the query goes along (a link's redirectTo)", async () => {
    const res = await (await appHandler())(new Request(`${BASE}/login?redirectTo=%2Fkyc`, { redirect: 'manual' }));
    expect(res.headers.get('location')).toBe('/?redirectTo=%2Fkyc');
  });

  test('other unknown paths stay a 404', async () => {
    const res = await (await appHandler())(new Request(`${BASE}/logins`, { redirect: 'manual', headers: { accept: 'text/html' } }));
    expect(res.status).toBe(404);
  });
});
