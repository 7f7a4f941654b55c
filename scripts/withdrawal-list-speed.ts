// How long the staff withdrawal lists' loaders take on a running stack (README "List speed at scale"):
//   node --import tsx scripts/withdrawal-list-speed.ts [baseUrl] [email] [password]
// Signs in as the given staff member (default the demo admin), then asks each route's loader
// alone (single fetch: /admin/withdraws/<list>.data?_routes=…) for each case 20 times after 3
// warm-ups, and prints the fastest, the median and the 95th percentile in milliseconds, as the browser
// receives them. Meant for data loaded by `npm run seed:scale`.
const [base = 'http://127.0.0.1:3000', email = 'admin@demo.broker', password = 'Demo-1234'] = process.argv.slice(2);
const RUNS = 20;
const WARMUP = 3;

const signIn = await fetch(new URL('/?index', base), {
  method: 'POST', redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(base).origin },
  body: new URLSearchParams({ email, password }),
});
const cookie = (signIn.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
if (signIn.status !== 302 || !cookie) throw new Error(`sign-in failed (${signIn.status})`);

const day = (d: Date) => d.toISOString().slice(0, 10);
const now = new Date();
const monthAgo = new Date(now.getTime() - 30 * 86_400_000);
const cases: [string, string, string][] = [
  ['pending', 'all, first page', ''],
  ['pending', 'search by email (customer5123…)', 'search=customer5123'],
  ['pending', 'search by email, broad (customer…)', 'search=customer'],
  ['pending', 'search by an id (4242: no match)', 'search=4242'],
  ['pending', 'sort by amount', 'sort=amount&dir=desc'],
  ['pending', 'deep page (last page of 15)', 'page=400'],
  ['history', 'all, first page', ''],
  ['history', 'status declined', 'status=declined'],
  ['history', 'date range (last 30 days)', `dateStart=${day(monthAgo)}&dateEnd=${day(now)}`],
  ['history', 'sort by amount, approved', 'status=approved&sort=amount&dir=asc'],
  ['history', 'deep page (page 3,000 of 15)', 'page=3000'],
  ['history', 'deep page, 50 a page (page 1,000)', 'page=1000&limit=50'],
];

/** rows and total out of the single-fetch answer (turbo-stream: a flat array whose objects point at their keys and values by index) */
function loaderData(body: string): { rows: unknown[]; total: number } {
  const flat = JSON.parse(body) as unknown[];
  const at = (key: string) => {
    const k = `_${flat.indexOf(key)}`;
    const holder = flat.find((o): o is Record<string, number> => !!o && typeof o === 'object' && !Array.isArray(o) && k in o);
    if (!holder) throw new Error(`no ${key} in the answer`);
    return flat[holder[k]];
  };
  return { rows: at('rows') as unknown[], total: at('total') as number };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
console.log(`| list | case | rows | total | min ms | median ms | p95 ms |\n|---|---|---:|---:|---:|---:|---:|`);
for (const [list, name, query] of cases) {
  const route = `routes/_staff.admin.withdraws.${list}`;
  const url = new URL(`/admin/withdraws/${list}.data?${query}${query ? '&' : ''}_routes=${encodeURIComponent(route)}`, base);
  const times: number[] = [];
  let last: { rows: unknown[]; total: number } | null = null;
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers: { cookie } });
    if (!res.ok) throw new Error(`${list} ${name}: ${res.status} ${await res.text()}`);
    last = loaderData(await res.text());
    if (i >= WARMUP) times.push(performance.now() - t);
  }
  console.log(`| ${list} | ${name} | ${last!.rows.length} | ${last!.total} | ${Math.min(...times).toFixed(1)} | ${pct(times, 0.5).toFixed(1)} | ${pct(times, 0.95).toFixed(1)} |`);
}
