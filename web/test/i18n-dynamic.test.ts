// Every text the pages ask t() for is a key of the English seed (the key list): a key nobody has
// is reported by the browser (POST /translations/{lng}) and shows untranslated. i18n-keys.ts
// collects the literal keys; this test finds every t() whose key is not a literal and requires it
// to be either a lookup in a constant table whose every text is a key, or an expression reviewed
// below as yielding only keys (a stored text — a gateway's title, a notification's sentence — is
// never one: show it as it is, or map it to a key, as gatewayLabel does).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

const appDir = path.resolve(import.meta.dirname, '../app');
const en = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../seeds/translations/en.json'), 'utf8')) as Record<string, string>;

/** Dynamic keys reviewed as always a key of the list, and why. */
const REVIEWED: Record<string, string> = {
  'e': 'a field error: a schema message (collected)', 'e!': 'a field error: a schema message (collected)',
  'err.message': 'a schema message (collected)', 'data.filterError.message': 'a schema message (collected)',
  'answer.message': "a reply's message (refuse(…), collected)", 'hint.message': 'the level hint: literal messages of level-input',
  'problem.message': "the positions' partial close and trailing stop dialogs: literal messages of trading/depth.ts and the engine's DEPTH_MESSAGES (collected)",
  'reason': "the order dialog's refusal: literal messages or the decimal parser's (collected)",
  'refusal': 'a withdrawal refusal: literal messages', 'error.data': "an error response's text: the app's literal messages",
  "d.message || 'Something went wrong'": "the import's refusal: literal messages",
  'x.title': 'a toast: an i18n key unless marked translated', 'x.description': 'a toast: an i18n key unless marked translated',
  'item.title': 'the menu: the permission map (collected)', 'l.title': 'the menu: the permission map (collected)',
  'shortcut': 'SHORTCUT_LABEL (collected)', 'screen.title': 'the CRM screens: literal titles (collected)',
  'label': 'literal labels of the same file', 'fd.label': 'the API settings cards: literal labels', 'field.title': 'the gateway kinds: literal titles',
  'o.title': 'the gateway kinds: literal option titles',
  'data.callBlocked': "click-to-call's refusal: CALL_TOASTS (literal messages, collected)", 'b.message': 'boundText: the level hints (literal messages)',
  'title': "a reply's toast compared with the form's errors (toast.tsx: the reply's literal messages)", 'qtyProblem.message': 'quantityProblem: literal messages of trading/dialog.ts',
  'field.options.find((o) => o.value === g.values[field.key])?.title ?? String(g.values[field.key])': 'an option title, else the stored value (options are literal)',
  'x.label': "the dashboard's tabs: literal labels", 'TABS.find((x) => x.category === tab)!.label': "the dashboard's tabs: literal labels",
  'stateHeader': 'one of two literals', 'moveLabel(screen, target)': 'literal labels', 'MESSAGES.resetInvalid': 'auth messages (collected)',
  'roleLabel(r)': 'ROLE_LABELS (collected)', 'roleLabel(r.roleId)': 'ROLE_LABELS (collected)',
  'closeReasonLabel(d.reason)': 'CLOSE_REASON_LABELS (collected)', 'closeReasonLabel(o.close_reason)': 'CLOSE_REASON_LABELS (collected)',
  'closeReasonLabel(row.original.closeReason)': 'CLOSE_REASON_LABELS (collected)',
  'r.msg': 'only the three literal messages it is compared with', 'GATEWAY_TITLES[nameOrTitle]': 'GATEWAY_TITLES (collected)',
  'pendingEndLabel(d.reason)': 'PENDING_END_LABELS (collected)', 'pendingEndLabel(o.cancel_reason)': 'PENDING_END_LABELS (collected)',
  'pendingTypeLabel(d.side, d.orderType)': 'PENDING_TYPE_LABELS (collected)', 'pendingTypeLabel(o.type, o.order_type)': 'PENDING_TYPE_LABELS (collected)',
  'pendingTypeLabel(side, pendingKind)': 'PENDING_TYPE_LABELS (collected)', 'pendingTypeLabel(row.type, row.orderType)': 'PENDING_TYPE_LABELS (collected)',
  'pendingTypeLabel(row.original.type, row.original.orderType)': 'PENDING_TYPE_LABELS (collected)',
  'pendingTypeLabel(cancelling.type, cancelling.orderType)': 'PENDING_TYPE_LABELS (collected)',
  'pendingTypeLabel(o.type, o.orderType)': 'PENDING_TYPE_LABELS (collected)', 'pendingEndLabel(o.cancelReason)': 'PENDING_END_LABELS (collected)',
  'k.label': "the order dialog's kinds: literal labels", 'priceProblem.message': "pendingPriceProblem (PENDING_PRICE_MESSAGES, collected) or 'Enter a price'",
  'expiryProblem': 'one literal message', 'PENDING_SUMMARY[side][pendingKind]': 'PENDING_SUMMARY (collected)',
  'nameOrTitle': 'only when it is one of GATEWAY_TITLES', 'kinds[e.kind]': 'PAYMENT_KINDS or PAYOUT_KINDS, literal texts (checked below)',
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) return files(p);
    return /\.tsx?$/.test(f) && !f.endsWith('.server.ts') ? [p] : [];
  });
}
const sources = files(appDir).map((f) => ({ file: path.relative(appDir, f), src: readFileSync(f, 'utf8') }));

/** The first argument of each t( call, as written. */
function firstArguments(src: string): string[] {
  const out: string[] = [];
  for (const m of src.matchAll(/(?<![\w.$])t\(/g)) {
    let i = m.index! + 2, depth = 0, arg = '';
    while (i < src.length) {
      const c = src[i];
      if (c === "'" || c === '"' || c === '`') { // a string: to its closing quote
        let j = i + 1;
        while (j < src.length && src[j] !== c) j += src[j] === '\\' ? 2 : 1;
        arg += src.slice(i, j + 1);
        i = j + 1;
        continue;
      }
      if ('([{'.includes(c)) depth++;
      else if (')]}'.includes(c)) { if (depth === 0) break; depth--; }
      else if (c === ',' && depth === 0) break;
      arg += c;
      i++;
    }
    out.push(arg.trim());
  }
  return out;
}

const LITERAL = /^(['"])(?:\\.|(?!\1)[^\\])*\1$/;
/** A conditional or a fallback between literals: each literal is a key. */
const literalsOf = (arg: string) => [...arg.matchAll(/(['"])((?:\\.|(?!\1)[^\\])*)\1/g)].map((m) => m[2].replace(/\\(.)/g, '$1'));

/** The string values of a constant object table, wherever the app defines it. */
function tableValues(name: string): string[] | null {
  for (const { src } of sources) {
    const m = new RegExp(`\\bconst ${name}\\b[^=]*=\\s*\\{`).exec(src);
    if (!m) continue;
    let i = m.index + m[0].length, depth = 1;
    const start = i;
    while (i < src.length && depth > 0) { if (src[i] === '{') depth++; else if (src[i] === '}') depth--; i++; }
    const body = src.slice(start, i - 1);
    return [...body.matchAll(/:\s*(['"])((?:\\.|(?!\1)[^\\])*)\1/g)].map((v) => v[2].replace(/\\(.)/g, '$1'));
  }
  return null;
}

describe('keys given to t() that are not literals', () => {
  const calls = sources.flatMap(({ file, src }) => firstArguments(src).filter((a) => a && !LITERAL.test(a)).map((arg) => ({ file, arg })));

  test('the scan finds the dynamic keys', () => {
    expect(calls.length).toBeGreaterThan(50);
  });

  test('a lookup in a constant table: every text of the table is a key', () => {
    const problems: string[] = [];
    for (const { file, arg } of calls) {
      const table = /^([A-Z][A-Z0-9_]*)\[/.exec(arg)?.[1];
      if (!table) continue;
      const values = tableValues(table);
      if (!values) { problems.push(`${file}: t(${arg}): table ${table} not found`); continue; }
      for (const v of values) if (!(v in en)) problems.push(`${file}: t(${arg}): '${v}' is not a key`);
      // a fallback must be a key too: a raw value is not
      const fallback = /\?\?\s*(.+)$/.exec(arg)?.[1];
      if (fallback && !LITERAL.test(fallback.trim())) problems.push(`${file}: t(${arg}): falls back to a value that is no key`);
    }
    expect(problems).toEqual([]);
  });

  test('the tables handed to a component as `kinds`', () => {
    for (const table of ['PAYMENT_KINDS', 'PAYOUT_KINDS']) expect((tableValues(table) ?? ['missing']).filter((v) => !(v in en)), table).toEqual([]);
  });

  test('a conditional between literals: each is a key', () => {
    const problems: string[] = [];
    for (const { file, arg } of calls) {
      if (/^([A-Z][A-Z0-9_]*)\[/.test(arg) || arg in REVIEWED || !/[?]/.test(arg)) continue;
      if (/^[\w.]+(\s*(===|!==)\s*'[^']*')?\s*\?/.test(arg)) for (const k of literalsOf(arg).filter((s) => /[A-Z]/.test(s[0] ?? ''))) if (!(k in en)) problems.push(`${file}: '${k}'`);
    }
    expect(problems).toEqual([]);
  });

  test('any other dynamic key has been reviewed as always a key', () => {
    const unreviewed = calls.filter(({ arg }) => !/^([A-Z][A-Z0-9_]*)\[/.test(arg) && !(arg in REVIEWED)
      && !/^[\w.()]+(\s*(===|!==)\s*'[^']*')?\s*\?\s*'[^']*'\s*:/.test(arg));
    expect(unreviewed.map(({ file, arg }) => `${file}: t(${arg})`)).toEqual([]);
  });
});

describe('the gateways\' names', () => {
  test('the demo seed titles each gateway as the code names it (gatewayLabel: its key)', async () => {
    const { GATEWAY_TITLES } = await import('~/modules/gateways/kinds.ts');
    const seed = readFileSync(path.resolve(import.meta.dirname, '../../seeds/demo.ts'), 'utf8');
    const rows = Object.fromEntries([...seed.matchAll(/\['(\w+)', '([^']+)', (?:true|false), \[/g)].map((m) => [m[1], m[2]]));
    expect(rows).toEqual(GATEWAY_TITLES);
  });
});
