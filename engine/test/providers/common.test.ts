// Shared adapter plumbing: backoff, time and price parsing, line splitting.
import { describe, expect, test } from 'bun:test';
import { Backoff, parseTime, price, readLines, tick } from '../../src/feed/providers/common.ts';

describe('provider plumbing', () => {
  test('capped exponential backoff, reset after success, bounded jitter', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 0 });
    expect([b.next(), b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([100, 200, 400, 800, 1000, 1000]);
    b.reset();
    expect(b.next()).toBe(100);
    const j = new Backoff({ initialMs: 1000, maxMs: 10_000, jitter: 0.2, random: () => 1 });
    expect(j.next()).toBe(1100);
    const lo = new Backoff({ initialMs: 1000, maxMs: 10_000, jitter: 0.2, random: () => 0 });
    expect(lo.next()).toBe(900);
  });

  test('times: RFC 3339 with nanoseconds or offsets, Unix seconds; junk refused', () => {
    expect(parseTime('2016-10-27T08:38:43.094548890Z')).toBe(Date.UTC(2016, 9, 27, 8, 38, 43, 94));
    expect(parseTime('2016-10-27T08:38:43Z')).toBe(Date.UTC(2016, 9, 27, 8, 38, 43));
    expect(parseTime('2016-10-27T10:38:43.5+02:00')).toBe(Date.UTC(2016, 9, 27, 8, 38, 43, 500));
    expect(parseTime('1478280000.123456789')).toBe(1478280000123);
    for (const bad of ['', 'yesterday', '2016-13-45T99:00:00Z', 42, null]) expect(parseTime(bad)).toBeUndefined();
  });

  test('prices: positive finite numbers or numeric strings only', () => {
    expect(price('1.0852')).toBe(1.0852);
    expect(price(2)).toBe(2);
    for (const bad of ['', ' ', 'NA', 0, -1, NaN, Infinity, null, undefined, {}]) expect(price(bad)).toBeUndefined();
    expect(tick('X', 1, 0.9, 1)).toBeUndefined();
    expect(tick('X', 1, 1, 1)).toEqual({ symbol: 'X', bid: 1, ask: 1, ts: 1 });
  });

  test('readLines joins split chunks, skips blank lines, keeps a final unterminated line', async () => {
    const enc = new TextEncoder();
    const parts = ['{"a":', '1}\n\n{"b"', ':2}\r\n', '{"c":3}'];
    const body = new ReadableStream<Uint8Array>({ start(c) { for (const p of parts) c.enqueue(enc.encode(p)); c.close(); } });
    const lines: string[] = [];
    await readLines(body, new AbortController().signal, (l) => lines.push(l));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });
});
