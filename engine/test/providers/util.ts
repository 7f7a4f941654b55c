// Test helpers for the provider adapters.
import type { Tick } from '../../src/book/book.ts';
import type { Heartbeat } from '../../src/feed/feed.ts';

export async function waitFor(cond: () => boolean, ms = 2000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function sink() {
  const ticks: Tick[] = [];
  const beats: Heartbeat[] = [];
  return { ticks, beats, emit: (t: Tick) => { ticks.push(t); }, beat: (h: Heartbeat) => { beats.push(h); } };
}

/** Fast, deterministic backoff for tests. */
export const fast = { backoff: { initialMs: 5, maxMs: 40, jitter: 0 }, heartbeatMs: 0 };
