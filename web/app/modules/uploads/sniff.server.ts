// What a file is, decided from its bytes alone (never its name or the browser's Content-Type),
// and whether it is whole: each image format is walked to its end marker (nothing may follow
// it), its dimensions must be sane, and its metadata may carry no markup (a PNG text chunk or a
// JPEG comment holding HTML is a polyglot). SVG, HTML and XML are refused outright.
import type { FileType } from './kinds.ts';

export type Sniffed =
  | { ok: true; type: FileType; width?: number; height?: number }
  | { ok: false; reason: 'markup' | 'type' | 'damaged' | 'dimensions' | 'text'; type?: FileType };

/** Larger pictures are refused: browsers and any later re-encoder would decode them whole. */
export const MAX_SIDE = 16_384;
export const MAX_PIXELS = 40_000_000;

class Damaged extends Error {}
class Markup extends Error {}

function need(ok: unknown): asserts ok {
  if (!ok) throw new Damaged();
}

/** Tags that make a browser or a mail client treat bytes as a document. */
const MARKUP = /<(?:script|html|head|body|iframe|svg|object|embed|meta|link|style|!doctype|\?xml-stylesheet)[\s>/]/i;

function scanMetadata(bytes: Uint8Array): void {
  if (MARKUP.test(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'))) throw new Markup();
}

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) => sig.every((x, i) => b[at + i] === x);
const ascii = (b: Uint8Array, from: number, to: number) => Buffer.from(b.buffer, b.byteOffset + from, Math.max(0, to - from)).toString('latin1');

/** The binary formats, by their signature. */
function detect(b: Uint8Array): FileType | null {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a') return 'gif';
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'webp';
  if (startsWith(b, [0, 0, 1, 0])) return 'ico';
  if (ascii(b, 0, 5) === '%PDF-') return 'pdf';
  return null;
}

/** Leading bytes that make it markup: `<` after an optional BOM and whitespace (SVG, HTML, XML). */
function looksLikeMarkup(b: Uint8Array): boolean {
  let i = startsWith(b, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  // UTF-16 BOMs: a text file in UTF-16 is not a CSV we accept either, and may be markup
  if (startsWith(b, [0xff, 0xfe]) || startsWith(b, [0xfe, 0xff])) return true;
  while (i < b.length && i < 4096 && (b[i] === 0x20 || b[i] === 0x09 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x0c)) i++;
  return b[i] === 0x3c; // '<'
}

export function sniff(bytes: Uint8Array, allowed: readonly FileType[]): Sniffed {
  if (looksLikeMarkup(bytes)) return { ok: false, reason: 'markup' };
  const type = detect(bytes);
  if (!type) {
    if (!allowed.includes('csv')) return { ok: false, reason: 'type' };
    return csvText(bytes) ? { ok: true, type: 'csv' } : { ok: false, reason: 'text' };
  }
  if (!allowed.includes(type)) return { ok: false, reason: 'type', type };
  try {
    const dims = VERIFY[type](bytes);
    if (dims && !saneDimensions(dims.width, dims.height)) return { ok: false, reason: 'dimensions', type };
    return { ok: true, type, ...dims };
  } catch (e) {
    if (e instanceof Markup) return { ok: false, reason: 'markup', type };
    if (e instanceof Damaged || e instanceof RangeError) return { ok: false, reason: 'damaged', type };
    throw e;
  }
}

function saneDimensions(w: number, h: number): boolean {
  return Number.isInteger(w) && Number.isInteger(h) && w >= 1 && h >= 1 && w <= MAX_SIDE && h <= MAX_SIDE && w * h <= MAX_PIXELS;
}

type Dims = { width: number; height: number } | undefined;

const VERIFY: Record<FileType, (b: Uint8Array) => Dims> = {
  png: (b) => verifyPng(b, 0, b.length),
  jpeg: verifyJpeg,
  gif: verifyGif,
  webp: verifyWebp,
  ico: verifyIco,
  pdf: verifyPdf,
  csv: () => undefined,
};

const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

// ------------------------------------------------------------------ PNG

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(b: Uint8Array, from: number, to: number): number {
  let c = 0xffffffff;
  for (let i = from; i < to; i++) c = CRC_TABLE[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Every chunk's CRC holds, IHDR first, at least one IDAT, IEND last and at `end`. */
function verifyPng(b: Uint8Array, start: number, end: number): Dims {
  const v = view(b);
  let p = start + 8;
  let dims: Dims;
  let idat = false;
  for (let first = true; ; first = false) {
    need(p + 12 <= end);
    const len = v.getUint32(p);
    const type = ascii(b, p + 4, p + 8);
    need(/^[A-Za-z]{4}$/.test(type) && len <= end - p - 12);
    const data = p + 8;
    need(crc32(b, p + 4, data + len) === v.getUint32(data + len));
    if (first) {
      need(type === 'IHDR' && len === 13);
      const depth = b[data + 8];
      const color = b[data + 9];
      const depths: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
      need(depths[color]?.includes(depth));
      dims = { width: v.getUint32(data), height: v.getUint32(data + 4) };
    } else need(type !== 'IHDR');
    if (type === 'IDAT') idat = true;
    else if (type !== 'IEND' && type !== 'PLTE') scanMetadata(b.subarray(data, data + len)); // tEXt, iTXt, zTXt, eXIf, …
    p = data + len + 4;
    if (type === 'IEND') {
      need(idat && len === 0 && p === end);
      return dims;
    }
  }
}

// ------------------------------------------------------------------ JPEG

/** Segments walked from SOI to EOI (entropy-coded data skipped by its markers); EOI ends the file. */
function verifyJpeg(b: Uint8Array): Dims {
  const v = view(b);
  let p = 2;
  let dims: Dims;
  let scanned = false;
  for (;;) {
    need(p + 2 <= b.length && b[p] === 0xff);
    while (b[p] === 0xff && p + 1 < b.length && b[p + 1] === 0xff) p++; // fill bytes
    const marker = b[p + 1];
    p += 2;
    if (marker === 0xd9) {
      need(dims && scanned && p === b.length);
      return dims;
    }
    need(marker !== 0xd8 && marker !== 0x00);
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    need(p + 2 <= b.length);
    const len = v.getUint16(p);
    need(len >= 2 && p + len <= b.length);
    const seg = b.subarray(p + 2, p + len);
    const sof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (sof) {
      need(seg.length >= 6 && !dims);
      dims = { width: v.getUint16(p + 5), height: v.getUint16(p + 3) };
    } else if ((marker >= 0xe0 && marker <= 0xef) || marker === 0xfe) scanMetadata(seg); // APPn, COM
    p += len;
    if (marker === 0xda) {
      need(dims);
      scanned = true;
      // entropy-coded data runs to the next marker that is neither a stuffed 0xFF nor a restart
      while (p + 1 < b.length && !(b[p] === 0xff && b[p + 1] !== 0x00 && !(b[p + 1] >= 0xd0 && b[p + 1] <= 0xd7))) p++;
    }
  }
}

// ------------------------------------------------------------------ GIF

function verifyGif(b: Uint8Array): Dims {
  const v = view(b);
  need(b.length >= 14);
  const dims = { width: v.getUint16(6, true), height: v.getUint16(8, true) };
  let p = 13 + (b[10] & 0x80 ? 3 * 2 ** ((b[10] & 7) + 1) : 0);
  let images = 0;
  const subBlocks = (collect: boolean) => {
    for (;;) {
      need(p < b.length);
      const n = b[p++];
      if (n === 0) return;
      need(p + n <= b.length);
      if (collect) scanMetadata(b.subarray(p, p + n));
      p += n;
    }
  };
  for (;;) {
    need(p < b.length);
    const block = b[p++];
    if (block === 0x3b) {
      need(images > 0 && p === b.length);
      return dims;
    }
    if (block === 0x21) {
      need(p < b.length);
      const label = b[p++];
      subBlocks(label !== 0xf9); // everything but the graphic control extension is text or data
    } else {
      need(block === 0x2c && p + 9 <= b.length);
      const flags = b[p + 8];
      p += 9 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
      need(p < b.length && b[p] >= 1 && b[p] <= 11); // LZW minimum code size
      p++;
      subBlocks(false);
      images++;
    }
  }
}

// ------------------------------------------------------------------ WebP

/** The RIFF container's size is the file's; chunks tile it; a VP8, VP8L or animation frame is present. */
function verifyWebp(b: Uint8Array): Dims {
  const v = view(b);
  need(b.length >= 20 && v.getUint32(4, true) + 8 === b.length);
  let p = 12;
  let dims: Dims;
  let image = false;
  for (let first = true; p < b.length; first = false) {
    need(p + 8 <= b.length);
    const fourcc = ascii(b, p, p + 4);
    const len = v.getUint32(p + 4, true);
    const data = p + 8;
    need(len <= b.length - data);
    const d = b.subarray(data, data + len);
    if (fourcc === 'VP8 ') {
      need(len >= 10 && (d[0] & 1) === 0 && startsWith(d, [0x9d, 0x01, 0x2a], 3));
      if (first) dims = { width: (d[6] | (d[7] << 8)) & 0x3fff, height: (d[8] | (d[9] << 8)) & 0x3fff };
      image = true;
    } else if (fourcc === 'VP8L') {
      need(len >= 5 && d[0] === 0x2f);
      const bits = d[1] | (d[2] << 8) | (d[3] << 16) | (d[4] << 24);
      if (first) dims = { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
      image = true;
    } else if (fourcc === 'VP8X') {
      need(first && len >= 10);
      dims = { width: (d[4] | (d[5] << 8) | (d[6] << 16)) + 1, height: (d[7] | (d[8] << 8) | (d[9] << 16)) + 1 };
    } else if (fourcc === 'ANMF') image = true;
    else if (fourcc !== 'ALPH' && fourcc !== 'ANIM' && fourcc !== 'ICCP') scanMetadata(d); // EXIF, XMP, unknown
    need(!first || dims);
    p = data + len + (len & 1);
  }
  need(image && p === b.length);
  return dims;
}

// ------------------------------------------------------------------ ICO

/** An icon directory whose entries are whole PNGs or BMP bitmaps inside the file, the last one ending it. */
function verifyIco(b: Uint8Array): Dims {
  const v = view(b);
  need(b.length >= 22);
  const count = v.getUint16(4, true);
  need(count >= 1 && count <= 64 && 6 + 16 * count <= b.length);
  let width = 0;
  let height = 0;
  let last = 6 + 16 * count;
  for (let i = 0; i < count; i++) {
    const e = 6 + 16 * i;
    const size = v.getUint32(e + 8, true);
    const offset = v.getUint32(e + 12, true);
    need(size >= 40 && offset >= 6 + 16 * count && offset + size <= b.length);
    if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], offset)) verifyPng(b, offset, offset + size);
    else {
      const header = v.getUint32(offset, true);
      const w = v.getInt32(offset + 4, true);
      const h = v.getInt32(offset + 8, true);
      need([40, 108, 124].includes(header) && w > 0 && w <= 256 && h > 0 && h <= 512 && v.getUint16(offset + 12, true) === 1);
      need([1, 4, 8, 16, 24, 32].includes(v.getUint16(offset + 14, true)));
    }
    width = Math.max(width, b[e] || 256);
    height = Math.max(height, b[e + 1] || 256);
    last = Math.max(last, offset + size);
  }
  need(last === b.length);
  return { width, height };
}

// ------------------------------------------------------------------ PDF

/** A version header and a final %%EOF (nothing but whitespace after it). */
function verifyPdf(b: Uint8Array): Dims {
  need(/^%PDF-[12]\.\d/.test(ascii(b, 0, 8)));
  const tail = ascii(b, Math.max(0, b.length - 1024), b.length);
  need(/%%EOF[\r\n\t \0]*$/.test(tail));
  return undefined;
}

// ------------------------------------------------------------------ CSV

/** UTF-8 text (a BOM allowed) without NUL or other control characters than tab and line ends. */
function csvText(b: Uint8Array): boolean {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(b);
    // eslint-disable-next-line no-control-regex -- control characters are what this refuses
    return !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text);
  } catch {
    return false;
  }
}
