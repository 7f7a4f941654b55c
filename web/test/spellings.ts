// Other spellings of a path that the router (and web/server.mjs, which merges slashes) takes to
// the same route: each literal segment in another case or percent-encoded, doubled and trailing
// slashes. Used by web/test/auth/route-access.test.ts and `npm run probe`.

/** `path` is a concrete path of `pattern` (`:param` segments are left as they are). */
export function spellings(path: string, pattern: string): string[] {
  const segs = path.split('/').filter(Boolean);
  const literal = pattern.split('/').filter(Boolean).map((p) => !p.startsWith(':'));
  const map = (f: (s: string, i: number) => string) => '/' + segs.map((s, i) => (literal[i] ? f(s, i) : s)).join('/');
  const hex = (c: string) => `%${c.charCodeAt(0).toString(16)}`;
  const out = new Set<string>([
    map((s) => s.toUpperCase()),
    map((s, i) => (i === 0 ? s[0].toUpperCase() + s.slice(1) : s)),
    map((s) => s.replace(/[a-z]/g, (c, k) => (k % 2 ? c.toUpperCase() : c))),
    map((s) => s.replace(/[a-zA-Z]/, (c) => hex(c).toUpperCase())),
    map((s) => s.replace(/[a-zA-Z]/g, hex)),
    '/' + segs.join('//'),
    '//' + segs.join('/'),
    path + '/',
  ]);
  out.delete(path);
  return [...out];
}
