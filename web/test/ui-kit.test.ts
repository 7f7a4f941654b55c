// The shared kit's pure parts: list state in the URL, and the specs' date formats.
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { listQuery, parseListQuery, readListState } from '~/components/ui/list-params.ts';
import { formatClientDateTime, formatDateTime } from '~/components/ui/format.ts';
import { safeRedirect } from '~/shared/safe-redirect.ts';
import { assertSameOrigin } from '~/shared/request.server.ts';

describe('list state', () => {
  test('defaults: page 1, 15 rows, id descending, no search', () => {
    expect(readListState(new URLSearchParams())).toEqual({ page: 1, limit: 15, sort: 'id', dir: 'desc', search: '' });
  });
  test('only 15, 25 or 50 rows; bad pages fall back to 1', () => {
    expect(readListState(new URLSearchParams('limit=25&page=3')).limit).toBe(25);
    expect(readListState(new URLSearchParams('limit=1000')).limit).toBe(15);
    expect(readListState(new URLSearchParams('page=-4')).page).toBe(1);
    expect(readListState(new URLSearchParams('page=abc')).page).toBe(1);
  });
  test('loaders sort only by allowed columns and get an offset', () => {
    const q = listQuery(new Request('http://x/list?page=3&limit=50&sort=email&dir=asc&search=bob'), ['id', 'email']);
    expect(q).toMatchObject({ page: 3, limit: 50, offset: 100, sort: 'email', dir: 'asc', search: 'bob' });
    expect(listQuery(new Request('http://x/list?sort=password_hash'), ['id', 'email']).sort).toBe('id');
  });
  test('a prefix keeps two tables on one page apart', () => {
    expect(readListState(new URLSearchParams('t2page=2&page=5'), 't2').page).toBe(2);
  });
  test('the answer for a URL without the list\'s parameters is the same each time, and each caller gets its own', () => {
    const a = listQuery(new Request('http://x/list?other=1'), ['id', 'email']);
    a.page = 99;
    expect(listQuery(new Request('http://x/list'), ['id', 'email'])).toEqual({ page: 1, limit: 15, sort: 'id', dir: 'desc', search: '', dateStart: '', dateEnd: '', offset: 0 });
    // a list's own parameter that is refused when missing is refused each time, named with the prefix
    const extra = { status: z.enum(['open', 'closed']) };
    for (let i = 0; i < 2; i++) expect(parseListQuery(new URLSearchParams(), { prefix: 'p_', extra })).toMatchObject({ ok: false, field: 'p_status' });
    expect(parseListQuery(new URLSearchParams('p_status=open'), { prefix: 'p_', extra })).toMatchObject({ ok: true, query: { status: 'open' } });
  });
});

describe('date formats', () => {
  const d = new Date(2024, 0, 5, 13, 7);
  test('admin and CRM lists: DD/MM/YYYY h:mm A', () => expect(formatDateTime(d)).toBe('05/01/2024 1:07 PM'));
  test('client pages: YYYY-MM-DD h:mm A', () => expect(formatClientDateTime(new Date(2024, 11, 31, 0, 5))).toBe('2024-12-31 12:05 AM'));
  test('empty values stay empty', () => expect(formatDateTime(null)).toBe(''));
});

describe('request safety', () => {
  test('redirects after a form post stay on this site', () => {
    expect(safeRedirect('/deposits?x=1')).toBe('/deposits?x=1');
    expect(safeRedirect('//evil.example')).toBe('/');
    expect(safeRedirect('https://evil.example')).toBe('/');
    expect(safeRedirect(null, '/dashboard')).toBe('/dashboard');
  });
  test('the Origin check refuses other sites and lets same-origin and non-browser posts through', () => {
    const req = (headers: Record<string, string>) => new Request('http://app.test/x', { method: 'POST', headers });
    expect(() => assertSameOrigin(req({ origin: 'http://app.test' }))).not.toThrow();
    expect(() => assertSameOrigin(req({}))).not.toThrow();
    expect(() => assertSameOrigin(req({ origin: 'https://evil.example' }))).toThrow();
    expect(() => assertSameOrigin(req({ origin: 'null' }))).toThrow();
    expect(() => assertSameOrigin(req({ 'sec-fetch-site': 'cross-site' }))).toThrow();
    expect(() => assertSameOrigin(new Request('http://app.test/x', { headers: { origin: 'https://evil.example' } }))).not.toThrow(); // GET
  });
});
