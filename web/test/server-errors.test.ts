// The server's error log and static files: a 404 (an unknown URL, /favicon.ico before it
// existed) is one log line, never a stack trace; a default favicon ships in web/public.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { UNSAFE_ErrorResponseImpl as ErrorResponse } from '@remix-run/router';
import { handleError } from '~/entry.server.tsx';

afterEach(() => vi.restoreAllMocks());

function logged(fn: () => void) {
  const lines: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...a) => { lines.push(a.map((x) => (x instanceof Error ? x.stack : String(x))).join(' ')); });
  vi.spyOn(console, 'warn').mockImplementation((...a) => { lines.push(a.map(String).join(' ')); });
  fn();
  return lines;
}

const args = (url: string, init?: RequestInit) => ({ request: new Request(url, init), params: {}, context: {} });

describe('handleError', () => {
  test('a 404 for an unknown URL is one line naming it (what Remix hands over for /favicon.ico)', () => {
    const notFound = new ErrorResponse(404, 'Not Found', new Error('No route matches URL "/favicon.ico"'), true);
    const lines = logged(() => handleError(notFound, args('http://app.test/favicon.ico')));
    expect(lines).toEqual(['[web] 404 GET /favicon.ico']);
  });

  test('a real error is logged with its stack; a dropped request is not logged', () => {
    const boom = new Error('boom');
    expect(logged(() => handleError(boom, args('http://app.test/x')))[0]).toContain('at ');
    const ac = new AbortController();
    ac.abort();
    expect(logged(() => handleError(boom, args('http://app.test/x', { signal: ac.signal })))).toEqual([]);
  });
});

test('a default favicon ships with the app (web/public/favicon.ico, a valid ICO)', () => {
  const ico = readFileSync(path.resolve(import.meta.dirname, '../public/favicon.ico'));
  expect(ico.readUInt16LE(0)).toBe(0);
  expect(ico.readUInt16LE(2)).toBe(1);
  expect(ico.readUInt16LE(4)).toBeGreaterThan(0);
});
