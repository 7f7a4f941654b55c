// `npm run probe`: the landing checks, run by hand against a running stack (PROBE_URL, default
// http://127.0.0.1:$WEB_PORT or :3000; DATABASE_URL for valid ids). Signs in as each demo role
// (and as a signed-out visitor) and, for every page route of the permission map (params filled
// with valid ids, other users' ids and bad values), GETs it with list parameters abused and POSTs
// bogus actions (same-origin Origin). Records every status >= 500, every page answering 200 to a
// role the map refuses, and every page still saying 'This page is being built'. Every route of
// the map (pages and calls) is also asked for under other spellings of its path (case,
// percent-encoded letters, extra slashes, a data request): any answer that differs from the
// canonical spelling's is a finding. Prints a summary; exits 1 when anything was found.
// PROBE_FILTER=substring narrows the routes.
import postgres from 'postgres';
import { ROUTES, CALLS, accessFor, type RoleId } from '../web/app/modules/auth/permissions.ts';
import { spellings } from '../web/test/spellings.ts';

const WEB = process.env.PROBE_URL ?? `http://127.0.0.1:${process.env.WEB_PORT ?? 3000}`;
const DB = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const FILTER = process.env.PROBE_FILTER ?? '';
const PASSWORD = process.env.PROBE_PASSWORD ?? 'Demo-1234';
const ROLES: { name: string; email: string | null }[] = [
  { name: 'admin', email: 'admin@demo.broker' }, { name: 'manager', email: 'manager@demo.broker' },
  { name: 'affiliate', email: 'affiliate@demo.broker' }, { name: 'sales', email: 'sales@demo.broker' },
  { name: 'retention', email: 'retention@demo.broker' }, { name: 'alice', email: 'alice@demo.broker' },
  { name: 'visitor', email: null },
];
const BAD_IDS = ['abc', '-1', '0', '1e308', '99999999999999999999', '%00'];
const LONG = 'x'.repeat(5000);
const QUERIES = [
  '', 'page=abc', 'page=-1', 'page=99999999', 'limit=7', 'limit=abc', 'sort=nonexistent', 'dir=sideways',
  'dateStart=0000-01-01', 'dateStart=2024-13-45', 'dateEnd=abc', 'dateStart=2025-06-01&dateEnd=2024-01-01',
  `search=${LONG}`, `search=${encodeURIComponent(`'"%_\\`)}%00`, 'status=bogus', 'tab=bogus',
  'type=bogus', 'side=bogus', 'instrument=%00', 'country=%25', 'team=abc', 'agent=abc', 'salesStatus=abc',
  'affiliate=abc', 'gateway=bogus', 'kind=bogus', 'category=bogus', 'range=bogus', 'period=bogus', 'lng=zz',
  'page=1e308&limit=-5', 'sort=id;drop&dir=asc', 'level=bogus', 'action=bogus', 'actor=abc', 'entity=bogus', 'id=abc',
];
const BODIES: Record<string, string>[] = [
  {}, { intent: 'bogus' }, { intent: 'delete' }, { intent: 'delete', id: 'abc' }, { intent: 'update', id: '99999999999999999999' },
  { intent: 'create', amount: '1e308', price: 'abc' }, { intent: 'edit', id: '-1', amount: '99999999999999999999' },
  { intent: 'save', name: LONG }, { id: '%00', amount: 'NaN' }, { intent: 'assign', ids: 'abc,def', agent: 'x' },
];
const EXTRA = [
  '/admin/audit/export', '/admin/audit/export?dateStart=2024-13-45&sort=bogus', '/statements/export',
  '/statements/export?dateStart=0000-01-01&dateEnd=abc', '/statements/export?format=bogus',
  '/i18n/en', '/i18n/zz', '/i18n/%00', '/i18n/..%2F..', '/dashboard/instruments', '/dashboard/instruments?category=bogus',
  '/uploads/abc', '/uploads/-1', '/uploads/99999999999999999999', '/uploads/1', '/notifications?page=abc',
  '/admin/notifications/api', '/admin/users/api', '/admin/customers/api', '/admin/withdraws/api/abc',
];

interface Finding { kind: '5xx' | 'wrong-role' | 'being-built' | 'spelling' | 'error'; role: string; method: string; url: string; status: number; note?: string }
const findings: Finding[] = [];
let requests = 0;

async function signIn(email: string): Promise<string> {
  const res = await fetch(`${WEB}/?index`, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: WEB },
    body: new URLSearchParams({ email, password: PASSWORD }),
  });
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  if (!cookies) throw new Error(`sign-in of ${email} failed: ${res.status}`);
  return cookies;
}

async function hit(role: string, cookie: string | null, method: 'GET' | 'POST', path: string, body?: Record<string, string>): Promise<{ status: number; text: string; location: string | null }> {
  requests++;
  const url = `${WEB}${path}`;
  try {
    const res = await fetch(url, {
      method, redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(method === 'POST' ? { origin: WEB, 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: body ? new URLSearchParams(body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 500) findings.push({ kind: '5xx', role, method, url: path, status: res.status, note: text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 160) });
    if ((res.headers.get('content-type') ?? '').includes('text/html') && /This page is being built/.test(text)) findings.push({ kind: 'being-built', role, method, url: path, status: res.status });
    return { status: res.status, text, location: res.headers.get('location') };
  } catch (e) {
    findings.push({ kind: 'error', role, method, url: path, status: 0, note: String(e) });
    return { status: 0, text: '', location: null };
  }
}

const sql = postgres(DB, { max: 1, onnotice: () => {} });
const users = await sql<{ id: number; email: string; role_id: number }[]>`SELECT id, email, role_id FROM users WHERE email LIKE '%@demo.broker' ORDER BY id`;
const idOf = (e: string) => String(users.find((u) => u.email === e)?.id ?? 1);
const langs = (await sql`SELECT code FROM languages ORDER BY code LIMIT 2`.catch(() => [])).map((l) => String(l.code));
const deposits = (await sql`SELECT id FROM deposits ORDER BY id LIMIT 2`.catch(() => [])).map((d) => String(d.id));
await sql.end();

function fill(pattern: string): string[] {
  if (!pattern.includes(':')) return [pattern];
  const values = [idOf('alice@demo.broker'), idOf('bob@demo.broker'), idOf('admin@demo.broker'), ...deposits, ...langs, 'en', ...BAD_IDS];
  return [...new Set(values)].map((v) => pattern.replace(/:[a-zA-Z]+/g, v));
}

for (const role of ROLES) {
  const cookie = role.email ? await signIn(role.email) : null;
  const roleId = (role.email ? users.find((u) => u.email === role.email)?.role_id : 0) as RoleId | 0;
  process.stderr.write(`[probe] ${role.name} (role ${roleId})\n`);
  for (const rule of ROUTES) {
    if (FILTER && !rule.path.includes(FILTER)) continue;
    for (const path of fill(rule.path)) {
      const queries = path === fill(rule.path)[0] ? QUERIES : [''];
      for (const q of queries) {
        const url = q ? `${path}?${q}` : path;
        const res = await hit(role.name, cookie, 'GET', url);
        const allowed = roleId !== 0 && accessFor(path.split('?')[0], roleId).allowed;
        if (res.status === 200 && !allowed) findings.push({ kind: 'wrong-role', role: role.name, method: 'GET', url, status: 200 });
      }
      if (path === fill(rule.path)[0] || path.endsWith('/abc')) {
        for (const b of BODIES) {
          const res = await hit(role.name, cookie, 'POST', path, b);
          const allowed = roleId !== 0 && accessFor(path, roleId).allowed;
          if (res.status === 200 && !allowed && res.text.includes('"success"')) findings.push({ kind: 'wrong-role', role: role.name, method: 'POST', url: path, status: 200 });
        }
      }
    }
  }
  // every route under other spellings: the same answer as the canonical one
  for (const rule of [...ROUTES, ...CALLS]) {
    if (FILTER && !rule.path.includes(FILTER)) continue;
    const path = fill(rule.path)[0];
    const answer = (r: { status: number; location: string | null }) => `${r.status}${r.location ? ` → ${r.location.toLowerCase().replace(/\/+$/, '')}` : ''}`;
    const dataPath = (p: string) => `${p === '/' ? '/_root' : p}.data`;
    const canonical = answer(await hit(role.name, cookie, 'GET', path));
    const data = answer(await hit(role.name, cookie, 'GET', dataPath(path)));
    for (const other of spellings(path, rule.path)) {
      // a rate limit (429: the leads API's per-address limit of failed keys, which this loop trips)
      // answers before the route does, whatever the spelling: not a difference of routes
      const differs = (a: string, b: string) => a !== b && !a.startsWith('429') && !b.startsWith('429');
      const got = answer(await hit(role.name, cookie, 'GET', other));
      if (differs(got, canonical)) findings.push({ kind: 'spelling', role: role.name, method: 'GET', url: other, status: Number(got.split(' ')[0]), note: `canonical ${path}: ${canonical}, this: ${got}` });
      if (other.endsWith('/')) continue;
      const gotData = answer(await hit(role.name, cookie, 'GET', dataPath(other)));
      if (differs(gotData, data)) findings.push({ kind: 'spelling', role: role.name, method: 'GET', url: dataPath(other), status: Number(gotData.split(' ')[0]), note: `canonical ${dataPath(path)}: ${data}, this: ${gotData}` });
    }
  }
  for (const path of EXTRA) {
    if (FILTER && !path.includes(FILTER)) continue;
    await hit(role.name, cookie, 'GET', path);
    await hit(role.name, cookie, 'POST', path.split('?')[0], { intent: 'bogus', id: 'abc' });
  }
}

const seen = new Set<string>();
const unique = findings.filter((f) => { const k = `${f.kind} ${f.method} ${f.url.slice(0, 200)} ${f.role}`; if (seen.has(k)) return false; seen.add(k); return true; });
for (const f of unique) console.log(`${f.kind.padEnd(11)} ${f.status} ${f.role.padEnd(9)} ${f.method} ${f.url.slice(0, 140)}${f.note ? `  — ${f.note}` : ''}`);
const count = (k: Finding['kind']) => unique.filter((f) => f.kind === k).length;
console.log(`\n[probe] ${requests} requests: ${count('5xx')} 5xx, ${count('wrong-role')} wrong-role 200s, ${count('spelling')} spellings answered unlike the canonical path, ${count('being-built')} 'being built' pages, ${count('error')} fetch errors`);
process.exit(unique.length ? 1 : 0);
