// Citations inside the repository (issue 23): code, tests, migrations and docs cite the product's
// rules as docs/specs.md sections (and the system as docs/architecture.md sections), never documents
// a maintainer of this repository does not have. Every `docs/<file>.md#anchor` must name a heading
// of that file, slugged as GitHub does.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
/** The documents this repository does not hold (spelled apart so this file does not cite them). */
const FOREIGN = ['admin', 'crm', 'client-area'].map((name) => `${name}.md`);
const CITED_DOCS = ['docs/specs.md', 'docs/architecture.md'];
const TEXT = /\.(ts|tsx|mts|cts|js|mjs|cjs|sql|md|css|json|ya?ml|sh|html)$/;

/** The tracked files (and the untracked ones not ignored), text only. */
function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return [...new Set(out.split('\0'))].filter((f) => f && TEXT.test(f) && !/(^|\/)(node_modules|build)\//.test(f) && !f.endsWith('package-lock.json'));
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to '-', repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1].toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const files = repositoryFiles().map((f) => ({ file: f, text: readFileSync(path.join(root, f), 'utf8') }));
const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

describe('citations', () => {
  test('the slug of a heading is GitHub\'s', () => {
    expect([...headingAnchors('# A\n## Web ↔ engine\n### Login-as\n## Forms and actions\n## A\n```\n# not a heading\n```')])
      .toEqual(['a', 'web--engine', 'login-as', 'forms-and-actions', 'a-1']);
  });

  test('the repository holds files to scan, this one among them', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => f.file === 'web/test/citations.test.ts')).toBe(true);
  });

  test('no file cites a document the repository does not have', () => {
    const found: string[] = [];
    for (const { file, text } of files) {
      for (const name of FOREIGN) {
        const re = new RegExp(`(?<![\\w-])${name.replace(/[.-]/g, '\\$&')}`, 'g');
        for (const m of text.matchAll(re)) found.push(`${file}:${lineOf(text, m.index)} ${name}`);
      }
    }
    expect(found, 'cite the docs/specs.md section instead').toEqual([]);
  });

  test('every docs/specs.md# and docs/architecture.md# anchor is a heading of that file', () => {
    const anchors = new Map(CITED_DOCS.map((doc) => [doc, headingAnchors(readFileSync(path.join(root, doc), 'utf8'))]));
    const broken: string[] = [];
    let cited = 0;
    for (const { file, text } of files) {
      for (const m of text.matchAll(/\bdocs\/(specs|architecture)\.md#([\p{L}\p{N}_-]+)/gu)) {
        cited += 1;
        const anchor = m[2].replace(/-+$/, '');
        if (!anchors.get(`docs/${m[1]}.md`)!.has(anchor)) broken.push(`${file}:${lineOf(text, m.index)} docs/${m[1]}.md#${m[2]}`);
      }
    }
    expect(cited).toBeGreaterThan(100);
    expect(broken, 'no such heading').toEqual([]);
  });
});
