// The visitor pages (sign-in, sign-up, forgot password) asked for without a session render the
// same HTML for everyone with the same language: their loaders (and the root's and the auth
// layout's) read only site settings, languages and translations, which each process keeps
// (app/shared/live-cache.server.ts) until PostgreSQL NOTIFYs a change. So this keeps the HTML of
// such a request, keyed by path, `lang` cookie and Accept-Language, for as long as those copies
// stay current, and at most a minute. Any other cookie (a session, a toast), a query string, an
// answer other than 200 or one that sets a cookie goes through Remix as usual.
// A loader of these pages that reads anything else must take its page out of PAGES.
const PAGES = new Set(['/', '/signup', '/forgot-password']);
const MAX_ENTRIES = 200;
const MAX_AGE_MS = 60_000;
// set again by the compression middleware on the way out
const SKIP_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'vary', 'set-cookie']);

/** The `lang` cookie's value ('' without one), or null when the request carries any other cookie. */
function langOnly(cookieHeader) {
  if (!cookieHeader) return '';
  let lang = '';
  for (const part of cookieHeader.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (!name) continue;
    if (name !== 'lang') return null;
    lang = value.join('=');
  }
  return lang;
}

export function visitorPageCache() {
  const entries = new Map();
  return (req, res, next) => {
    const state = globalThis.__brokerLiveCacheState;
    if (!state || (req.method !== 'GET' && req.method !== 'HEAD') || req.url !== req.path || !PAGES.has(req.path)) return next();
    const lang = langOnly(req.headers.cookie);
    if (lang === null) return next();
    const key = `${req.path}\0${lang}\0${String(req.headers['accept-language'] ?? '').slice(0, 200)}`;
    const hit = entries.get(key);
    if (hit && state.live && hit.epoch === state.epoch && Date.now() - hit.at < MAX_AGE_MS) {
      res.status(200);
      for (const [name, value] of hit.headers) res.setHeader(name, value);
      res.end(req.method === 'HEAD' ? undefined : hit.body);
      return;
    }
    if (hit) entries.delete(key);
    if (!state.live || req.method !== 'GET') return next();
    // the copies this render reads are current as of now: keep it only if they still are at its end
    const epoch = state.epoch;
    const chunks = [];
    const { write, end } = res;
    const keep = (chunk, encoding) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8') : Buffer.from(chunk));
    };
    res.write = function (chunk, encoding, ...rest) {
      keep(chunk, encoding);
      return write.call(this, chunk, encoding, ...rest);
    };
    res.end = function (chunk, encoding, ...rest) {
      keep(chunk, encoding);
      if (res.statusCode === 200 && !res.getHeader('set-cookie') && state.live && state.epoch === epoch) {
        const headers = Object.entries(res.getHeaders()).filter(([name]) => !SKIP_HEADERS.has(name));
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value);
        entries.set(key, { epoch, at: Date.now(), headers, body: Buffer.concat(chunks) });
      }
      return end.call(this, chunk, encoding, ...rest);
    };
    next();
  };
}
