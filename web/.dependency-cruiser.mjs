// The web app's direction of dependency (docs/architecture.md#layers-of-the-web-app), checked by
// `npm test -- lint`: routes → modules/<area> → components → shared, an area importing only the
// areas its row of that table names, no import cycle between files. The table in the doc is the
// one source: this file reads it, and refuses a table that leaves an area out or loops.
import fs from 'node:fs';
import path from 'node:path';

const DOC = path.join(import.meta.dirname, '..', 'docs', 'architecture.md');
const AREAS_DIR = path.join(import.meta.dirname, 'app', 'modules');

/** area → the areas it may import, from the rows of the doc's 'Layers of the web app' table */
function readLayers() {
  const doc = fs.readFileSync(DOC, 'utf8');
  const start = doc.indexOf('## Layers of the web app');
  if (start < 0) throw new Error(`${DOC}: no '## Layers of the web app' section`);
  const section = doc.slice(start, doc.indexOf('\n## ', start + 3) >>> 0 || undefined);
  const layers = new Map();
  for (const line of section.split('\n')) {
    const m = /^\| `([a-z0-9-]+)` \|[^|]*\| ([^|]*) \|$/.exec(line.trim());
    if (!m) continue;
    const may = m[2].trim() === '—' ? [] : [...m[2].matchAll(/`([a-z0-9-]+)`/g)].map((x) => x[1]);
    layers.set(m[1], may);
  }
  const folders = fs.readdirSync(AREAS_DIR).filter((f) => fs.statSync(path.join(AREAS_DIR, f)).isDirectory());
  const missing = folders.filter((f) => !layers.has(f));
  if (missing.length) throw new Error(`docs/architecture.md 'Layers of the web app' has no row for: ${missing.join(', ')}`);
  for (const [area, may] of layers) {
    for (const dep of may) if (!layers.has(dep)) throw new Error(`docs/architecture.md: '${area}' may import '${dep}', which has no row`);
  }
  // the table itself must be one direction: a loop there would allow a loop in the code
  const state = new Map();
  const visit = (a, trail) => {
    if (state.get(a) === 'done') return;
    if (state.get(a) === 'open') throw new Error(`docs/architecture.md 'Layers of the web app' loops: ${[...trail, a].join(' → ')}`);
    state.set(a, 'open');
    for (const d of layers.get(a)) visit(d, [...trail, a]);
    state.set(a, 'done');
  };
  for (const a of layers.keys()) visit(a, []);
  return layers;
}

const layers = readLayers();
const esc = (s) => s.replace(/[-]/g, '\\-');

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle between files: move what both need down a layer.',
      severity: 'error',
      from: { path: '^app/' },
      to: { circular: true },
    },
    {
      name: 'shared-imports-nothing-above',
      comment: 'shared/ is the lowest layer: it imports no component, area or route.',
      severity: 'error',
      from: { path: '^app/shared/' },
      to: { path: '^app/(components|modules|routes)/|^app/(root|entry)' },
    },
    {
      name: 'components-import-only-shared',
      comment: 'The UI kit knows no area and no route.',
      severity: 'error',
      from: { path: '^app/components/' },
      to: { path: '^app/(modules|routes)/|^app/(root|entry)' },
    },
    {
      name: 'areas-import-no-route',
      comment: 'Routes own the request and import areas, never the other way round.',
      severity: 'error',
      from: { path: '^app/modules/' },
      to: { path: '^app/routes/|^app/(root|entry)' },
    },
    {
      name: 'areas-read-no-request',
      comment: 'Routes own the request (access, params, form, client IP) and hand an area plain values and sql: an area imports no Remix server package. Exceptions: auth (request-level by nature: the guards, the route gate, the request context) and uploads (streams a request body).',
      severity: 'error',
      from: {
        path: '^app/modules/',
        pathNot: '^app/modules/(auth|uploads)/',
      },
      to: { path: '@remix-run/(node|server-runtime)' },
    },
    {
      name: 'routes-import-no-route',
      comment: 'A route module is one URL: what two routes share belongs in an area.',
      severity: 'error',
      from: { path: '^app/routes/' },
      to: { path: '^app/routes/' },
    },
    ...[...layers].map(([area, may]) => ({
      name: `area-${area}`,
      comment: `${area} may import only ${may.length ? may.join(', ') : 'no other area'} (docs/architecture.md#layers-of-the-web-app)`,
      severity: 'error',
      from: { path: `^app/modules/${esc(area)}/` },
      to: { path: '^app/modules/', pathNot: `^app/modules/(${[area, ...may].map(esc).join('|')})/` },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^app/.*\\.d\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.tsx', '.js', '.mjs'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
