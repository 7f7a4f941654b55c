// Every request body read by the app is capped while it streams (issue 22 §3): a declared
// Content-Length above the cap is refused unread, and a body without one (chunked) is counted as
// it arrives and the read stops at the first byte past the cap, so no body is ever held in memory
// beyond its cap whatever the client declares. Past the cap: 413 with a message. Used by the
// payment webhooks (raw body, 256 KiB) and by every form action (`readFormData`, 1 MiB); multipart
// uploads have their own per-part and whole-form caps (modules/uploads, receiveUploads).

/** The default cap of a form action's body: forms post a few kilobytes; 1 MiB leaves room for long texts. */
export const FORM_MAX_BYTES = 1024 * 1024;

export const TOO_LARGE_MESSAGE = 'The form is too large.';

/** A body past its cap; `response()` is the 413 answered for it. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The request body is larger than ${limit} bytes`);
  }

  response(message = TOO_LARGE_MESSAGE): Response {
    return new Response(message, { status: 413, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
  }
}

/** The request's body, at most `limit` bytes; throws BodyTooLarge past it (the rest is never read). */
export async function readBodyCapped(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > limit) throw new BodyTooLarge(limit);
  if (!request.body) return new Uint8Array(new ArrayBuffer(0));
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(limit);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(new ArrayBuffer(size));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The body as UTF-8 text, capped. */
export async function readTextCapped(request: Request, limit: number): Promise<string> {
  return new TextDecoder().decode(await readBodyCapped(request, limit));
}

/**
 * A form action's `request.formData()`, capped (url-encoded or multipart without files). Past the
 * cap it throws the 413 Response, which Remix answers as it is.
 */
export async function readFormData(request: Request, limit = FORM_MAX_BYTES): Promise<FormData> {
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = await readBodyCapped(request, limit);
  } catch (e) {
    if (e instanceof BodyTooLarge) throw e.response();
    throw e;
  }
  const type = request.headers.get('content-type') ?? 'application/x-www-form-urlencoded';
  return new Response(bytes, { headers: { 'content-type': type } }).formData();
}
