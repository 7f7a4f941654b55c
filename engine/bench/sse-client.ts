// One process of SSE clients for bench:sse (several run side by side so the reading side is not
export {};
// the bottleneck). Measures between MEASURE_FROM and MEASURE_TO (epoch ms) and prints JSON.
// Frames are cut and searched as bytes (no text decoding of 6 kB messages 10,000 times over),
// so that a client's own parsing does not add to the latency it measures.
const { BASE, TICKET, CLIENTS, MEASURE_FROM, MEASURE_TO, SAMPLE_EVERY } = process.env;
const n = Number(CLIENTS), from = Number(MEASURE_FROM), to = Number(MEASURE_TO), sampleEvery = Number(SAMPLE_EVERY ?? 20);
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

async function client(i: number) {
  const res = await fetch(`${BASE}/stream?topics=prices&ticket=${TICKET}`);
  if (res.status !== 200) throw new Error(`client ${i}: ${res.status}`);
  connected++;
  const reader = res.body!.getReader();
  let rest: Buffer | null = null;
  const sample = i % sampleEvery === 0;
  for (;;) {
    const r = await reader.read();
    if (r.done) return;
    const now = Date.now();
    if (now > to) { await reader.cancel(); return; }
    if (now < from) { rest = null; continue; } // frames are cut from the first chunk after `from`
    const buf: Buffer = rest ? Buffer.concat([rest, r.value]) : Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength);
    let start = 0, cut;
    while ((cut = buf.indexOf(END, start)) >= 0) {
      if (cut - start >= PRICE.length && buf.compare(PRICE, 0, PRICE.length, start, start + PRICE.length) === 0) {
        messages++;
        let newest = 0;
        times(buf, start, cut, (t) => {
          if (t > newest) newest = t;
          if (sample) ages.push(now - t);
        });
        fresh.push(now - newest);
      }
      start = cut + 2;
    }
    rest = start < buf.length ? Buffer.from(buf.subarray(start)) : null;
  }
}

const all: Promise<void>[] = [];
for (let i = 0; i < n; i++) {
  all.push(client(i).catch((e) => console.error(e.message)));
  if (i % 100 === 99) await Bun.sleep(20);
}
console.error(`[clients] ${connected} connected`);
await Promise.race([Promise.all(all), Bun.sleep(Math.max(0, to - Date.now()) + 2000)]);
console.log(JSON.stringify({ connected, messages, fresh, ages }));
process.exit(0);
