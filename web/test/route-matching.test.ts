// web/route-matching.mjs: React Router's matchRoutes, kept per route shape and path, answers what
// matchRoutes answers (routes, params, pathnames) for every kind of route the app has, with the
// route objects of the array it is given, and a fresh params object each time.
import { describe, expect, test } from 'vitest';
import { matchRoutes, type AgnosticRouteObject } from '@remix-run/router';
import { memoizeMatchRoutes } from '../route-matching.mjs';

type R = AgnosticRouteObject & { id: string; children?: R[] };

/** A tree shaped like the app's: a root, pathless layouts, index routes, params, a bracketed segment, a splat. */
function routes(): R[] {
  return [{
    id: 'root', path: '',
    children: [
      { id: 'routes/_auth', children: [
        { id: 'routes/_auth._index', index: true },
        { id: 'routes/_auth.signup', path: 'signup' },
        { id: 'routes/_auth.reset-password.$token', path: 'reset-password/:token' },
      ] },
      { id: 'routes/_client', children: [
        { id: 'routes/_client.dashboard', path: 'dashboard' },
        { id: 'routes/_client.deposits._index', path: 'deposits', index: true },
        { id: 'routes/_client.deposits.bank.$id', path: 'deposits/bank/:id' },
        { id: 'routes/_client.statements', path: 'statements', caseSensitive: true },
      ] },
      { id: 'routes/_staff', children: [
        { id: 'routes/_staff.admin._index', path: 'admin', index: true },
        { id: 'routes/_staff.admin.customers.edit.$id', path: 'admin/customers/edit/:id' },
        { id: 'routes/_staff.admin.status.[server]', path: 'admin/status/server' },
        { id: 'routes/_staff.admin.status.api', path: 'admin/status/api' },
        { id: 'routes/_staff.admin.languages.$code', path: 'admin/languages/:code' },
      ] },
      { id: 'routes/dashboard.candles.$symbol', path: 'dashboard/candles/:symbol' },
      { id: 'routes/uploads.$id', path: 'uploads/:id' },
      { id: 'routes/$', path: '*' },
    ],
  }];
}

const PATHS = [
  '/', '', '/signup', '/signup/', '/reset-password/abc%20def', '/dashboard', '/Dashboard', '/dashboard/candles/EUR_USD',
  '/deposits', '/deposits/bank/12', '/statements', '/STATEMENTS', '/admin', '/admin/customers/edit/7', '/admin/status/server',
  '/admin/status/api', '/admin/languages/de', '/uploads/9', '/nope/at/all', '/dashboard?x=1#top', '/admin/customers/edit/',
];

/** What a match says, without object identity. */
const plain = (m: ReturnType<typeof matchRoutes>) => m && m.map((x) => ({ id: x.route.id, params: { ...x.params }, pathname: x.pathname, pathnameBase: x.pathnameBase }));

describe('memoized matchRoutes', () => {
  test('answers what matchRoutes answers, first time and again, for paths as strings and as locations, with a basename', () => {
    const memo = memoizeMatchRoutes(matchRoutes);
    const tree = routes();
    for (const basename of ['/', '/app']) {
      for (const p of PATHS) {
        const path = basename === '/' ? p : `${basename}${p}`;
        for (const loc of [path, { pathname: path.split(/[?#]/)[0] }]) {
          const want = plain(matchRoutes(tree, loc, basename));
          expect(plain(memo(tree, loc, basename)), `${basename} ${JSON.stringify(loc)}`).toEqual(want);
          expect(plain(memo(tree, loc, basename)), `again ${basename} ${JSON.stringify(loc)}`).toEqual(want);
        }
      }
    }
  });

  test("an answer holds the route objects of the array it was asked about, and params of its own", () => {
    let calls = 0;
    const counted = ((...args: Parameters<typeof matchRoutes>) => { calls++; return matchRoutes(...args); }) as typeof matchRoutes;
    const memo = memoizeMatchRoutes(counted);
    const a = routes(), b = routes(); // the same shape, other objects (Remix builds new routes per render)
    const first = memo(a, '/admin/customers/edit/7')!;
    const second = memo(b, '/admin/customers/edit/7')!;
    expect(calls).toBe(1);
    expect(first.at(-1)!.route).toBe(a[0].children![2].children![1]);
    expect(second.at(-1)!.route).toBe(b[0].children![2].children![1]);
    expect(second.map((m) => m.params.id)).toEqual(['7', '7', '7']);
    // one params object per answer, shared by its matches as matchRoutes does; a change to it stays there
    expect(second[0].params).toBe(second[2].params);
    (second[0].params as Record<string, string>).id = 'changed';
    expect(memo(b, '/admin/customers/edit/7')!.at(-1)!.params.id).toBe('7');
  });

  test('a different shape is matched on its own', () => {
    const memo = memoizeMatchRoutes(matchRoutes);
    const tree = routes();
    expect(memo(tree, '/uploads/9')!.at(-1)!.route.id).toBe('routes/uploads.$id');
    const other = routes();
    const uploads = other[0].children!.find((r) => r.id === 'routes/uploads.$id')!;
    uploads.path = 'files/:id';
    expect(plain(memo(other, '/uploads/9'))).toEqual(plain(matchRoutes(other, '/uploads/9')));
    expect(memo(other, '/files/9')!.at(-1)!.route).toBe(uploads);
  });

  test('routes without ids are matched as before, every time', () => {
    let calls = 0;
    const memo = memoizeMatchRoutes(((...args: Parameters<typeof matchRoutes>) => { calls++; return matchRoutes(...args); }) as typeof matchRoutes);
    const tree = [{ path: '/', children: [{ path: 'a/:x' }] }];
    expect(plain(memo(tree, '/a/1'))).toEqual(plain(matchRoutes(tree, '/a/1')));
    memo(tree, '/a/1');
    expect(calls).toBe(2);
  });

  test('keeps a bounded number of answers and still answers right past it', () => {
    const memo = memoizeMatchRoutes(matchRoutes);
    const tree = routes();
    for (let i = 0; i < 2500; i++) memo(tree, `/uploads/${i}`);
    expect(memo(tree, '/uploads/2499')!.at(-1)!.params.id).toBe('2499');
    expect(memo(tree, '/uploads/1')!.at(-1)!.params.id).toBe('1');
  });
});
