// Real files of every accepted type (JPEG and WebP encoded by Chromium's canvas, the ICO is the
// app's own favicon), PNGs built here chunk by chunk, and the multipart requests that carry them.
import { readFileSync } from 'node:fs';
import { BASE } from '../helpers.ts';

const b64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));

/** 8×6, baseline, with an ICC profile in APP2 */
export const JPEG = b64('/9j/4AAQSkZJRgABAQAAAQABAAD/4gHYSUNDX1BST0ZJTEUAAQEAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADb/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAAGAAgDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAb/xAAeEAACAQMFAAAAAAAAAAAAAAACAwABBDERIUFhof/EABUBAQEAAAAAAAAAAAAAAAAAAAUH/8QAGxEBAAEFAQAAAAAAAAAAAAAAAQMAAiExQbH/2gAMAwEAAhEDEQA/AJ43rKyWmiBFglrVvJZ2x35ERAADVVGGCyESzqrlcuXfmjlf/9k=');
/** 8×6 lossy (VP8X + ICCP + VP8) */
export const WEBP = b64('UklGRhwCAABXRUJQVlA4WAoAAAAgAAAABwAABQAASUNDUMgBAAAAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADZWUDggLgAAAJABAJ0BKggABgABQCYloAJ0ugADmAD+7v+f/AXT3Ri3/7g4/7Bx/2Dj90wAAAA=');
/** 8×6 lossless (VP8X + ICCP + VP8L) */
export const WEBP_LOSSLESS = b64('UklGRgYCAABXRUJQVlA4WAoAAAAgAAAABwAABQAASUNDUMgBAAAAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADZWUDhMFwAAAC8HQAEAD/Az5s9kzsz8Rws+/h/R/4gBAA==');
/** 1×1 GIF89a with a graphic control extension */
export const GIF = b64('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7');
/** the app's 16×16 BMP icon */
export const ICO = new Uint8Array(readFileSync(new URL('../../public/favicon.ico', import.meta.url)));
export const PDF = new TextEncoder().encode(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n' +
  'trailer<</Root 1 0 R>>\n%%EOF\n',
);
export const CSV = new TextEncoder().encode('\uFEFFemail,name,phone\nada@example.com,Ada Lovelace,+44 20 1234\nzoë@example.com,Zoë,\n');

export { chunk, png } from './png.ts';

export const text = (s: string) => new TextEncoder().encode(s);
export const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

export interface Part { name: string; value?: string; file?: Uint8Array; filename?: string; type?: string }

/** A multipart body written by hand, so the file name and Content-Type are exactly what a client claims. */
export function multipartBody(parts: Part[], boundary = '----uploadtest' + Math.random().toString(36).slice(2)): { body: Uint8Array; boundary: string } {
  const out: Uint8Array[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"\r\nContent-Type: ${p.type ?? 'application/octet-stream'}`;
    out.push(Buffer.from(head + '\r\n\r\n', 'utf8'), p.file ?? Buffer.from(p.value ?? '', 'utf8'), Buffer.from('\r\n'));
  }
  out.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: concat(...out), boundary };
}

export function uploadRequest(parts: Part[], opts: { cookie?: string; path?: string } = {}): Request {
  const { body, boundary } = multipartBody(parts);
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}`, origin: BASE, 'content-length': String(body.length) };
  if (opts.cookie) headers.cookie = opts.cookie;
  return new Request(BASE + (opts.path ?? '/kyc'), { method: 'POST', headers, body: Buffer.from(body) });
}
