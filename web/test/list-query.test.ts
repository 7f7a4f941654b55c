// Bad query strings on lists and exports: every one is clamped to a valid value or answered 400
// with a message naming the field, never a 500 or a dropped download (one schema: list-params.ts).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from './mocks/server.ts';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { testSql, createUser, sessionFor, get, settle } from './helpers.ts';
import { env } from '~/shared/env.server.ts';
import { parseListQuery, MAX_PAGE } from '~/components/ui/list-params.ts';
import { loader as statementsLoader } from '~/routes/_client.statements.tsx';
import { loader as exportLoader } from '~/routes/statements.export.ts';
import { loader as dashboardLoader } from '~/routes/_client.dashboard.tsx';
import { loader as userLoader } from '~/routes/auth.user.tsx';

const sql = testSql();
mockServer(
  http.get(`${env().ENGINE_URL}/v1/quotes`, () => HttpResponse.json({ status: { fx: 'open', stock: 'open', crypto: 'open' }, quotes: [] })),
);
afterAll(async () => { await sql.end(); });

const load = (fn: (a: LoaderFunctionArgs) => unknown, request: Request) =>
  settle(Promise.resolve().then(() => fn({ request, params: {}, context: {} })));

/** A customer on a pricing plan with an active wallet holding a few closed trades. */
async function customer() {
  const u = await createUser(sql);
  const [plan] = await sql`SELECT id FROM pricing_plans ORDER BY id LIMIT 1`;
  const planId = plan ? plan.id : (await sql`INSERT INTO pricing_plans (name, price) VALUES ('List Test', 10) RETURNING id`)[0].id;
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  await sql`UPDATE users SET active_balance_id = ${b.id}, pricing_plan_id = ${planId} WHERE id = ${u.id}`;
  const [i] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, bids, asks)
                        VALUES ('LQT_USD', 'LQT', 'USD', 'forex', 100, 1.1, 1.1002)
                        ON CONFLICT (name) DO UPDATE SET base = 'LQT' RETURNING id`;
  await sql`INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, close_rate, exchange_rate,
                                spread, pro_loss, margin_used, leverage, close_time, close_reason)
            SELECT ${u.id}, ${b.id}, ${i.id}, 'buy', 'forex', 1000, 1.1, 1.2, 1, 0, 100, 11, 100, now(), 'manual' FROM generate_series(1, 3)`;
  const s = await sessionFor(sql, u.id);
  return { ...u, cookie: s.cookie };
}

let cookie = '';
beforeAll(async () => { cookie = (await customer()).cookie; });

function statusOf(r: unknown): number {
  if (r instanceof Response) return r.status;
  const d = r as { init?: { status?: number } | null };
  return d?.init?.status ?? 200;
}

describe('the list query schema', () => {
  const q = (s: string, prefix = '') => parseListQuery(new URLSearchParams(s), { prefix, sortable: ['id', 'email'], dates: true });
  test.each([
    ['page=1e308', MAX_PAGE],
    ['page=99999999999999999999', MAX_PAGE],
    ['page=-5', 1],
    ['page=0', 1],
    ['page=abc', 1],
    ['page=Infinity', 1],
    ['page=2.7', 2],
    ['page=', 1],
    ['', 1],
    ['page=7', 7],
  ])('%s → page %i', (s, page) => {
    const r = q(s);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.query.page).toBe(page);
      expect(Number.isSafeInteger(r.query.offset)).toBe(true);
    }
  });

  test('a search never carries a NUL or control character to PostgreSQL (probe: 500 on search=%00)', () => {
    const r = q(`search=${encodeURIComponent(`a'"%_\\`)}%00b%0A`);
    expect(r.ok && r.query.search).toBe(`a'"%_\\b`);
  });

  test('page size from the allowed set, sort from the allow-list, dir asc|desc, search bounded', () => {
    const r = q(`limit=1000000&sort=pg_sleep(1)&dir=sideways&search=${'x'.repeat(5000)}`);
    expect(r.ok && r.query).toMatchObject({ limit: 15, sort: 'id', dir: 'desc' });
    expect(r.ok && r.query.search.length).toBe(200);
    expect(q('limit=50&sort=email&dir=asc&page=3').ok && q('limit=50&sort=email&dir=asc&page=3')).toMatchObject({ query: { limit: 50, sort: 'email', dir: 'asc', offset: 100 } });
    expect(q('pos_page=1e308&pos_limit=25', 'pos_')).toMatchObject({ ok: true, query: { page: MAX_PAGE, limit: 25 } });
  });

  test.each([
    ['dateStart=0000-01-01', 'dateStart'],
    ['dateStart=1969-12-31', 'dateStart'],
    ['dateEnd=2101-01-01', 'dateEnd'],
    ['dateEnd=275760-09-13', 'dateEnd'],
    ['dateStart=2024-02-30', 'dateStart'],
    ['dateStart=2024-13-45', 'dateStart'],
    ["dateStart=2024-01-01'; --", 'dateStart'],
    ['dateStart=yesterday', 'dateStart'],
    ['dateStart=2024-03-10&dateEnd=2024-03-01', 'dateEnd'],
  ])('%s → 400 naming %s', (s, field) => {
    const r = q(s);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.field).toBe(field);
      expect(r.message).toMatch(field === 'dateStart' ? /start date/i : /end date/i);
    }
  });

  test('a list without a date filter never reads the date fields', () => {
    expect(parseListQuery(new URLSearchParams('dateStart=0000-01-01&page=2'))).toMatchObject({ ok: true, query: { page: 2 } });
  });

  test('sane dates and empty dates pass', () => {
    expect(q('dateStart=2024-02-29&dateEnd=2024-03-01')).toMatchObject({ ok: true, query: { dateStart: '2024-02-29', dateEnd: '2024-03-01' } });
    expect(q('dateStart=&dateEnd=')).toMatchObject({ ok: true, query: { dateStart: '', dateEnd: '' } });
  });
});

describe('loaders never answer 500 on a bad query', () => {
  const clamped = ['?page=1e308', '?page=99999999999999999999', '?page=-1', '?page=NaN', '?limit=1e9&sort=x;drop&dir=up'];
  const refused = ['?dateStart=0000-01-01', '?dateEnd=99999-01-01', '?dateStart=2024-02-30', '?dateStart=2024-03-10&dateEnd=2024-03-01'];

  test.each(clamped)('/statements%s is clamped: a page, no error', async (q) => {
    const r = await load(statementsLoader, get(`/statements${q}`, cookie));
    expect(statusOf(r)).toBe(200);
    expect(r).toHaveProperty('rows');
  });

  test.each(refused)('/statements%s answers 400 with a message', async (q) => {
    const r = await load(statementsLoader, get(`/statements${q}`, cookie));
    expect(r).toBeInstanceOf(Response);
    expect((r as Response).status).toBe(400);
    expect(await (r as Response).text()).toMatch(/date/);
  });

  test.each(refused)('/statements/export%s answers 400 before any CSV is streamed', async (q) => {
    const r = (await load(exportLoader, get(`/statements/export${q}`, cookie))) as Response;
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/text\/plain/);
    expect(await r.text()).toMatch(/date/);
  });

  test('/statements/export with a sane range streams the whole CSV', async () => {
    const r = (await load(exportLoader, get('/statements/export?dateStart=1970-01-01&dateEnd=2100-12-31', cookie))) as Response;
    expect(r.status).toBe(200);
    expect((await r.text()).trim().split('\r\n')).toHaveLength(4);
  });

  test.each(['?pos_page=1e308', '?pos_page=99999999999999999999&pos_limit=7', '?pos_tab=%00&pos_page=-3', '?pos_dateStart=0000-01-01&dateStart=0000-01-01'])('/dashboard%s is clamped', async (q) => {
    const r = (await load(dashboardLoader, get(`/dashboard${q}`, cookie))) as { positions: { page: number; pageSize: number; openOnly: boolean } };
    expect(statusOf(r)).toBe(200);
    expect(r.positions.page).toBeLessThanOrEqual(MAX_PAGE);
    expect([15, 25, 50]).toContain(r.positions.pageSize);
    expect(r.positions.openOnly).toBe(false);
  });

  test('/auth/user answers JSON for a customer on a pricing plan (no BigInt in the body)', async () => {
    const r = (await load(userLoader, get('/auth/user', cookie))) as Response;
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(typeof body.user.pricing_table_id).toBe('number');
    expect(body.user.balances[0].id).toBe(body.activeBalance.id);
  });
});
