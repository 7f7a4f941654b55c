// The readable page of the leads API (/api/v1/docs): rendered from the same OpenAPI document, so the
// page and the description never disagree. Plain HTML, no script, self-contained styles.
import { openApiDocument } from './openapi.ts';

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
type Schema = { type?: string; description?: string; required?: string[]; properties?: Record<string, Schema & { format?: string; maxLength?: number; enum?: string[] }> };

function fields(s: Schema): string {
  const rows = Object.entries(s.properties ?? {}).map(([k, p]) => `<tr><td><code>${esc(k)}</code></td><td>${esc(p.type ?? '')}${p.format ? ` (${esc(p.format)})` : ''}${p.enum ? `: ${p.enum.map(esc).join(' | ')}` : ''}</td><td>${s.required?.includes(k) ? 'yes' : 'no'}</td><td>${esc(p.description ?? '')}${p.maxLength ? ` (at most ${p.maxLength} characters)` : ''}</td></tr>`);
  return `<table><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Notes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

export function apiDocsHtml(origin: string): string {
  const doc = openApiDocument(origin);
  const s = doc.components.schemas as unknown as Record<string, Schema>;
  const ops = Object.entries(doc.paths['/api/v1/leads']).map(([method, op]) => {
    const responses = Object.entries(op.responses).map(([code, r]) => `<li><strong>${esc(code)}</strong>: ${esc((r as { description: string }).description)}</li>`).join('');
    return `<section><h2><code>${method.toUpperCase()} /api/v1/leads</code>: ${esc(op.summary)}</h2><p>${esc(op.description)}</p>
      ${'parameters' in op && op.parameters.length ? `<h3>Parameters</h3><ul>${op.parameters.map((p) => `<li><code>${esc(p.name)}</code> (${esc(p.in)})${'description' in p ? `: ${esc(p.description)}` : ''}</li>`).join('')}</ul>` : ''}
      <h3>Answers</h3><ul>${responses}</ul></section>`;
  }).join('');
  const example = `curl -X POST ${origin}/api/v1/leads \\
  -H 'Authorization: Bearer ak_…' -H 'Content-Type: application/json' -H 'Idempotency-Key: 4f9c…' \\
  -d '{"firstName":"Jane","lastName":"Doe","email":"jane@example.com","phone":"07700 900123","country":"GB"}'`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)}</title><style>
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1.5rem;color:#1a1d23;background:#fff}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{background:#f3f4f6;padding:1rem;overflow:auto;border-radius:6px}
table{border-collapse:collapse;width:100%;margin:1rem 0}th,td{border:1px solid #d1d5db;padding:.4rem .6rem;text-align:left;vertical-align:top}
a{color:#1d4ed8}h2{margin-top:2rem;font-size:1.25rem}
</style></head><body><main>
<h1>${esc(doc.info.title)} <small>v${esc(doc.info.version)}</small></h1>
<p>${esc(doc.info.description)}</p>
<p><a href="/api/v1/openapi.json?download" download>Download the OpenAPI description (JSON)</a> · <a href="/leads-example.csv" download>Example leads CSV</a></p>
<h2>Example</h2><pre><code>${esc(example)}</code></pre>
${ops}
<section><h2>A lead</h2>${fields(s.Lead)}</section>
<section><h2>A batch result</h2>${fields(s.BatchItem)}</section>
</main></body></html>`;
}
