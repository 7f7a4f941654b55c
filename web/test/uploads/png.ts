// Real PNG files made in code (no fixtures on disk), for the upload tests and the browser tests.
// No imports beyond Node's: e2e/ imports it too.
import { crc32, deflateSync } from 'node:zlib';

export function chunk(type: string, data: Uint8Array | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data, 'latin1') : Buffer.from(data);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}

/** A real RGB PNG of w×h pixels; `extra` chunks go between IHDR and IDAT. */
export function png(w = 4, h = 3, extra: Buffer[] = []): Uint8Array {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const rows = Buffer.alloc(Math.min(h, 64) * (1 + 3 * Math.min(w, 64)), 0x7f);
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(Buffer.concat([sig, chunk('IHDR', ihdr), ...extra, chunk('IDAT', deflateSync(rows)), chunk('IEND', '')]));
}
