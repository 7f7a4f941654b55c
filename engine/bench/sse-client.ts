// One process of SSE clients for bench:sse (several run side by side so the reading side is not
export {};
// the bottleneck). Measures between MEASURE_FROM and MEASURE_TO (epoch ms) and prints JSON.
const { BASE, TICKET, CLIENTS, MEASURE_FROM, MEASURE_TO, SAMPLE_EVERY } = process.env;
const n = Number(CLIENTS), from = Number(MEASURE_FROM), to = Number(MEASURE_TO), sampleEvery = Number(SAMPLE_EVERY ?? 20);
const fresh: number[] = [], ages: number[] = [];
let messages = 0, connected = 0;
const T = /"t":([\d.]+)/g;

async function client(i: number) {
  const res = await fetch(`${BASE}/stream?topics=prices&ticket=${TICKET}`);
  if (res.status !== 200) throw new Error(`client ${i}: ${res.status}`);
  connected++;
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const r = await reader.read();
    if (r.done) return;
    const now = Date.now();
    if (now > to) { await reader.cancel(); return; }
    buf += dec.decode(r.value, { stream: true });
    let cut;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const frame = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      if (now < from || !frame.startsWith('event: priceUpdate')) continue;
      messages++;
      let newest = 0;
      for (const m of frame.matchAll(T)) {
        const t = +m[1];
        if (t > newest) newest = t;
        if (i % sampleEvery === 0) ages.push(now - t);
      }
      fresh.push(now - newest);
    }
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
