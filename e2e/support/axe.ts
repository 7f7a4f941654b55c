// The project's accessibility rule: every page's e2e test runs axe-core (WCAG 2.1 AA) and fails
// on any violation. axe is injected from node_modules (no CDN), so it runs offline.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation { id: string; impact: string | null; help: string; nodes: { target: string[]; failureSummary?: string }[] }

export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  });
}

/** Fails with one readable line per violation and element. */
export async function expectNoAxeViolations(page: Page) {
  const violations = await axeViolations(page);
  const lines = violations.flatMap((v) => v.nodes.map((n) =>
    `${v.id} (${v.impact}): ${v.help} — ${n.target.join(' ')}${n.failureSummary ? ` — ${n.failureSummary.replace(/\s+/g, ' ')}` : ''}`));
  if (lines.length) throw new Error(`${lines.length} accessibility violation(s) (axe-core, WCAG 2.1 AA):\n${lines.join('\n')}`);
}
