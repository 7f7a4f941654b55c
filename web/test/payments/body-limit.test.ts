// Request bodies are capped while they stream (issue 22 §3): the webhook route's 256 KiB and the
// form actions' 1 MiB hold whatever the client declares — a chunked body without Content-Length
// (or an endless one) is cut at the cap and answered 413, never read to its end.
import { afterAll, describe, expect, it } from 'vitest';
import { handleWebhook, MAX_NOTIFICATION_BYTES } from '~/modules/payments/payments.server.ts';
import { FORM_MAX_BYTES, readFormData } from '~/shared/body-limit.server.ts';
import { action as forgotPassword } from '~/routes/_auth.forgot-password.tsx';
import { BASE, testSql } from '../helpers.ts';

const sql = testSql();
afterAll(() => sql.end());

/** A body of `total` bytes (endless when null) sent in 64 KiB chunks, counting what was pulled. */
function streamed(total: number | null, fill = 'a') {
  const chunk = new TextEncoder().encode(fill.repeat(64 * 1024));
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (total !== null && state.pulled >= total) return c.close();
      const part = total === null ? chunk : chunk.subarray(0, Math.min(chunk.byteLength, total - state.pulled));
      state.pulled += part.byteLength;
      c.enqueue(part);
    },
    cancel() { state.cancelled = true; },
  });
  return { stream, state };
}

const streamingRequest = (path: string, body: ReadableStream<Uint8Array>, headers: Record<string, string>) =>
  new Request(BASE + path, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

describe('webhook bodies', () => {
  it('an endless chunked notification without Content-Length is cut at 256 KiB and answered 413', async () => {
    const { stream, state } = streamed(null);
    const answer = await handleWebhook(sql, 'stripe', streamingRequest('/payments/webhooks/stripe', stream, { 'content-type': 'application/json' }));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'too_large' });
    expect(state.pulled).toBeLessThanOrEqual(MAX_NOTIFICATION_BYTES + 2 * 64 * 1024);
    expect(state.cancelled).toBe(true);
  }, 10_000);

  it('a declared Content-Length over the cap is refused unread', async () => {
    const { stream, state } = streamed(null);
    const answer = await handleWebhook(sql, 'stripe', streamingRequest('/payments/webhooks/stripe', stream, { 'content-length': String(MAX_NOTIFICATION_BYTES + 1) }));
    expect(answer.status).toBe(413);
    expect(state.pulled).toBeLessThanOrEqual(64 * 1024);
  });
});

describe('form actions', () => {
  it('a 2 MiB chunked form posted to an action is 413 with a message, read no further than the cap', async () => {
    const { stream, state } = streamed(2 * FORM_MAX_BYTES);
    const req = streamingRequest('/forgot-password', stream, { 'content-type': 'application/x-www-form-urlencoded', origin: BASE });
    const thrown = await forgotPassword({ request: req, params: {}, context: {} }).then(() => null, (e: unknown) => e);
    expect(thrown).toBeInstanceOf(Response);
    const res = thrown as Response;
    expect(res.status).toBe(413);
    expect(await res.text()).toBe('The form is too large.');
    expect(state.pulled).toBeLessThanOrEqual(FORM_MAX_BYTES + 2 * 64 * 1024);
  }, 10_000);

  it('a form under the cap parses as before, url-encoded and multipart', async () => {
    const small = new Request(BASE + '/x', { method: 'POST', body: new URLSearchParams({ email: 'a@b.test', note: 'é'.repeat(1000) }) });
    const f = await readFormData(small);
    expect(f.get('email')).toBe('a@b.test');
    expect(f.get('note')).toBe('é'.repeat(1000));
    const fd = new FormData();
    fd.set('intent', 'approve');
    const multi = await readFormData(new Request(BASE + '/x', { method: 'POST', body: fd }));
    expect(multi.get('intent')).toBe('approve');
  });
});
