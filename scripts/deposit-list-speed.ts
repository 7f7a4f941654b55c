// How long /admin/deposits' loader takes on a running stack (README "List speed at scale"):
//   node --import tsx scripts/deposit-list-speed.ts [baseUrl] [email] [password]
// Signs in as the given staff member (default the demo admin), then asks the route's loader
// alone (single fetch: /admin/deposits.data?_routes=…) for each case 20 times after 3 warm-ups,
// and prints the median and the 95th percentile in milliseconds, as the browser receives it.
// Meant for data loaded by `npm run seed:scale`.
const [base = 'http://127.0.0.1:3000', email = 'admin@demo.broker', password = 'Demo-1234'] = process.argv.slice(2);
const ROUTE = 'routes/_staff.admin.deposits';
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
const weekAgo = new Date(now.getTime() - 7 * 86_400_000);
const cases: [string, string][] = [
  ['all, first page', ''],
  ['status pending', 'status=pending'],
  ['search by email (customer5123…)', 'search=customer5123'],
  ['search by email, broad (customer…)', 'search=customer'],
  ['search by deposit or customer id', 'search=4242'],
  ['date range (last 7 days)', `dateStart=${day(weekAgo)}&dateEnd=${day(now)}`],
  ['sort by date, pending', 'status=pending&sort=created_at&dir=desc'],
  ['deep page (page 10,000 of 15)', 'page=10000'],
  ['deep page, 50 a page (page 3,000)', 'page=3000&limit=50'],
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
console.log(`| case | rows | total | median ms | p95 ms |\n|---|---:|---:|---:|---:|`);
for (const [name, query] of cases) {
  const url = new URL(`/admin/deposits.data?${query}${query ? '&' : ''}_routes=${encodeURIComponent(ROUTE)}`, base);
  const times: number[] = [];
  let last: { rows: unknown[]; total: number } | null = null;
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers: { cookie } });
    if (!res.ok) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    last = loaderData(await res.text());
    if (i >= WARMUP) times.push(performance.now() - t);
  }
  console.log(`| ${name} | ${last!.rows.length} | ${last!.total} | ${pct(times, 0.5).toFixed(1)} | ${pct(times, 0.95).toFixed(1)} |`);
}
