// Remix matches a request's path against the app's routes four times per document request (the
// server's matching, the data router's, the React render's, the route manifest of the page), and
// React Router's matchRoutes does it from scratch each time: it flattens the whole route tree,
// scores and sorts every branch and compiles a regular expression for each branch it tries. With
// this app's eighty-odd routes that was about a quarter of the CPU time of a simple page.
//
// matchRoutes is a pure function of the routes' shape (ids, paths, index and case flags, nesting),
// the path and the basename, so this keeps its answers: the first request to a path matches as
// before, later ones reuse the result, rebuilt with the route objects of the array they pass
// (Remix builds new route objects per render; an answer never hands back another request's
// objects, and each gets its own params). Routes without ids (not Remix's) are matched as before.
// web/server.mjs installs it on @remix-run/router's exports, which Remix and React Router call
// through; the matching inside the router's own static handler is not reached and stays as is.
const MAX_ANSWERS = 2000;

/**
 * A request target with each run of slashes in its path merged into one (`//admin//users?x=1` →
 * `/admin/users?x=1`), as a reverse proxy's merge_slashes does. web/server.mjs hands Remix the
 * merged target, so a path with extra slashes reaches the route, and the route gate, of its
 * canonical spelling (the router would otherwise answer it 404).
 */
export function mergeSlashes(target) {
  const end = target.search(/[?#]/);
  const path = end >= 0 ? target.slice(0, end) : target;
  const merged = path.replace(/\/{2,}/g, '/');
  return merged === path ? target : merged + (end >= 0 ? target.slice(end) : '');
}

/** The path of a location given as a string, as the router's parsePath reads it (before '#', then before '?'). */
function pathOf(location) {
  const hash = location.indexOf('#');
  const noHash = hash >= 0 ? location.slice(0, hash) : location;
  const search = noHash.indexOf('?');
  return search >= 0 ? noHash.slice(0, search) : noHash;
}

/** The memoizing matchRoutes around `original` (exported for the test). */
export function memoizeMatchRoutes(original) {
  const shapes = new WeakMap(); // routes array → { shape: number, byId: Map<string, route> } | null
  const shapeIds = new Map(); // shape text → small number
  const answers = new Map(); // `${shape}\0${basename}\0${pathname}` → null | { params, matches: [{ id, pathname, pathnameBase }] }

  function shapeOf(routes) {
    let known = shapes.get(routes);
    if (known !== undefined) return known;
    const byId = new Map();
    let text = '';
    let ok = true;
    const walk = (list) => {
      text += '[';
      for (const r of list) {
        if (!r || typeof r.id !== 'string' || byId.has(r.id)) { ok = false; return; }
        byId.set(r.id, r);
        // NUL cannot be part of a route id or path (they come from file names): it separates them
        text += `${r.id}\u0000${r.path ?? '\u0001'}\u0000${r.index ? 1 : 0}${r.caseSensitive ? 1 : 0}\u0000`;
        if (r.children?.length) walk(r.children);
        if (!ok) return;
        text += ',';
      }
      text += ']';
    };
    walk(routes);
    if (ok) {
      let n = shapeIds.get(text);
      if (n === undefined) shapeIds.set(text, (n = shapeIds.size));
      known = { shape: n, byId };
    } else known = null;
    shapes.set(routes, known);
    return known;
  }

  return function matchRoutes(routes, locationArg, basename = '/') {
    const pathname = typeof locationArg === 'string' ? pathOf(locationArg) : locationArg?.pathname;
    const known = Array.isArray(routes) && typeof pathname === 'string' ? shapeOf(routes) : null;
    if (!known) return original(routes, locationArg, basename);
    const key = `${known.shape}\u0000${basename}\u0000${pathname}`;
    let answer = answers.get(key);
    if (answer === undefined) {
      const matches = original(routes, locationArg, basename);
      answer = matches && {
        params: { ...(matches[0]?.params ?? {}) },
        matches: matches.map((m) => ({ id: m.route.id, pathname: m.pathname, pathnameBase: m.pathnameBase })),
      };
      // an answer naming a route this array does not hold by that id (cannot happen with unique ids) is not kept
      if (answer && answer.matches.some((m) => known.byId.get(m.id) === undefined)) return matches;
      if (answers.size >= MAX_ANSWERS) answers.clear();
      answers.set(key, answer);
      return matches;
    }
    if (answer === null) return null;
    // one params object shared by the matches, as matchRoutes answers
    const params = { ...answer.params };
    return answer.matches.map((m) => ({ params, pathname: m.pathname, pathnameBase: m.pathnameBase, route: known.byId.get(m.id) }));
  };
}

/** Installs the memo on @remix-run/router's exports (once). */
export function installRouteMatching(router) {
  if (router.matchRoutes.__memoized) return;
  const memo = memoizeMatchRoutes(router.matchRoutes);
  memo.__memoized = true;
  router.matchRoutes = memo;
}
