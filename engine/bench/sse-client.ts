// One process of SSE clients for bench:sse (several run side by side so the reading side is not
export {};
// the bottleneck). Connects its clients, then reads "<from> <to>" (epoch ms) on stdin, sent by
// bench:sse once every client of every process is connected, measures between them and prints JSON.
// Frames are cut and searched as bytes (no text decoding of 6 kB messages 10,000 times over),
// so that a client's own parsing adds as little as it can to the latency it measures.
const { BASE, TICKET, CLIENTS, SAMPLE_EVERY } = process.env;
let from = Infinity, to = Infinity;
const n = Number(CLIENTS), sampleEvery = Number(SAMPLE_EVERY ?? 20);
const fresh: number[] = [], ages: number[] = [];
let messages = 0, connected = 0;
const END = Buffer.from('\n\n'), PRICE = Buffer.from('event: priceUpdate'), T = Buffer.from('"t":');

/** The numbers after each `"t":` in frame[start, end). */
function times(buf: Buffer, start: number, end: number, each: (t: number) => void) {
  let i = buf.indexOf(T, start);
  while (i >= 0 && i < end) {
    let j = i + T.length, v = 0, frac = 0, scale = 1;
    for (; j < end; j++) {
      const c = buf[j];
      if (c >= 48 && c <= 57) { if (frac) { scale /= 10; v += (c - 48) * scale; } else v = v * 10 + (c - 48); }
      else if (c === 46) frac = 1;
      else break;
    }
    each(v);
    i = buf.indexOf(T, j);
  }
}

// Each client is a plain TCP socket speaking HTTP/1.1 (what a browser's EventSource sends), its
// chunked body decoded here: no fetch/ReadableStream machinery per chunk, so 2,500 clients in
// one process read 10,000 messages a second without the readers being the bottleneck.
const url = new URL(`${BASE}/stream?topics=prices&ticket=${TICKET}`);
const request = Buffer.from(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
const CRLF = Buffer.from('\r\n'), HEAD_END = Buffer.from('\r\n\r\n');

function client(i: number): Promise<void> {
  const sample = i % sampleEvery === 0;
  let head = true, raw: Buffer | null = null, body: Buffer | null = null, chunkLeft = 0, skipCrlf = false;
  return new Promise((resolve, reject) => {
    const frames = (now: number) => {
      // SSE frames in the decoded body
      if (!body) return;
      let start = 0, cut;
      while ((cut = body.indexOf(END, start)) >= 0) {
        if (now >= from && cut - start >= PRICE.length && body.compare(PRICE, 0, PRICE.length, start, start + PRICE.length) === 0) {
          messages++;
          let newest = 0;
          times(body, start, cut, (t) => {
            if (t > newest) newest = t;
            if (sample) ages.push(now - t);
          });
          fresh.push(now - newest);
        }
        start = cut + 2;
      }
      body = start < body.length ? Buffer.from(body.subarray(start)) : null;
    };
    void Bun.connect({
      hostname: url.hostname, port: Number(url.port),
      socket: {
        open(sock) { sock.write(request); },
        data(sock, chunk) {
          const now = Date.now();
          if (now > to) { sock.end(); return; }
          let buf: Buffer = raw ? Buffer.concat([raw, chunk]) : chunk;
          raw = null;
          if (head) {
            const h = buf.indexOf(HEAD_END);
            if (h < 0) { raw = Buffer.from(buf); return; }
            const status = buf.toString('latin1', 0, 12);
            if (!status.startsWith('HTTP/1.1 200')) { sock.end(); reject(new Error(`client ${i}: ${status}`)); return; }
            head = false;
            connected++;
            buf = buf.subarray(h + 4);
          }
          // chunked transfer encoding: "<hex size>\r\n<bytes>\r\n" …
          let p = 0;
          const parts: Buffer[] = [];
          while (p < buf.length) {
            if (skipCrlf) {
              if (buf.length - p < 2) break;
              p += 2; skipCrlf = false; continue;
            }
            if (chunkLeft > 0) {
              const take = Math.min(chunkLeft, buf.length - p);
              parts.push(buf.subarray(p, p + take));
              p += take; chunkLeft -= take;
              if (chunkLeft === 0) skipCrlf = true;
              continue;
            }
            const e = buf.indexOf(CRLF, p);
            if (e < 0) break;
            chunkLeft = parseInt(buf.toString('latin1', p, e), 16);
            p = e + 2;
            if (chunkLeft === 0) { sock.end(); return; } // the last chunk
          }
          if (p < buf.length) raw = Buffer.from(buf.subarray(p));
          if (parts.length) body = Buffer.concat(body ? [body, ...parts] : parts);
          frames(now);
        },
        close() { resolve(); },
        error(_s, e) { reject(e); },
        connectError(_s, e) { reject(e); },
      },
    }).catch(reject);
  });
}

const all: Promise<void>[] = [];
for (let i = 0; i < n; i++) {
  all.push(client(i).catch((e) => console.error(e.message)));
  if (i % 100 === 99) await Bun.sleep(20);
}
let cpuAtFrom: NodeJS.CpuUsage | undefined;
for await (const line of console) {
  [from, to] = line.trim().split(' ').map(Number);
  break;
}
setTimeout(() => { cpuAtFrom = process.cpuUsage(); }, Math.max(0, from - Date.now()));
await Promise.race([Promise.all(all), Bun.sleep(Math.max(0, to - Date.now()) + 2000)]);
const cpu = process.cpuUsage(cpuAtFrom);
console.log(JSON.stringify({ connected, messages, fresh, ages, cpu_s: (cpu.user + cpu.system) / 1e6 }));
process.exit(0);
