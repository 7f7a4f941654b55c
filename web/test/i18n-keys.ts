// Collects the i18n keys the UI uses: literal t('…') calls, the labels of the permission map
// and menus, and the message constants the pages translate (schemas, auth messages, toasts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { CLOSE_REASON_LABELS } from '@broker/engine/contract/events';
import { PENDING_END_LABELS } from '@broker/engine/contract/pending';
import { DECIMAL_INPUTS, DEPTH_MESSAGES, PENDING_PRICE_MESSAGES, decimalMessages, type DecimalSpec } from '@broker/engine/domain';
import { PENDING_EXPIRY_LABELS, PENDING_TYPE_LABELS } from '~/shared/pending-labels.ts';
import { PENDING_SUMMARY } from '~/modules/trading/order-dialog.tsx';
import { GATEWAY_TITLES } from '~/modules/gateways/kinds.ts';
import { MONEY_INPUT } from '~/modules/money/fees.ts';
import { ADJUST_AMOUNT } from '~/modules/customers/edit-schemas.ts';

const appDir = path.resolve(import.meta.dirname, '../app');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) return files(p);
    return /\.(ts|tsx)$/.test(f) && !/\.test\.tsx?$/.test(f) ? [p] : [];
  });
}

const unquote = (q: string, s: string) => s.replace(new RegExp(`\\\\${q}`, 'g'), q).replace(/\\\\/g, '\\');

/** The decimal fields whose refusals a page shows (bid and ask are the engine's test controls only). */
const DECIMAL_SPECS_SHOWN: DecimalSpec[] = [
  ...(['amount', 'lots', 'profit', 'loss', 'openRate', 'closeRate', 'spread', 'price'] as const).map((f) => DECIMAL_INPUTS[f]),
  // take profit / stop loss as levels (0 allowed: not set), and at the column's scale in a staff edit
  ...(['profit', 'loss'] as const).flatMap((f) => [{ ...DECIMAL_INPUTS[f], zero: true }, { ...DECIMAL_INPUTS[f], scale: 10, zero: true }]),
  // the stop-loss dialog's trailing distance, a level (0 or blank: off)
  DECIMAL_INPUTS.trailing, { ...DECIMAL_INPUTS.trailing, zero: true },
  MONEY_INPUT, ADJUST_AMOUNT,
];

export function collectKeys(): Set<string> {
  const keys = new Set<string>();
  const literal = /(['"])((?:\\.|(?!\1)[^\\])*)\1/g;
  for (const file of files(appDir)) {
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(/\bt\(\s*(['"])((?:\\.|(?!\1)[^\\])*)\1/g)) keys.add(unquote(m[1], m[2]));
    // messages handed to t() through a variable: toasts, schema messages, page titles
    for (const m of src.matchAll(/\b(?:title|message|required_error|toast)\s*:\s*(['"])((?:\\.|(?!\1)[^\\])*)\1/g)) keys.add(unquote(m[1], m[2]));
    // a module's refusal: refuse(status, 'message', field?)
    for (const m of src.matchAll(/\brefuse\(\s*\d+\s*,\s*(['"])((?:\\.|(?!\1)[^\\])*)\1/g)) keys.add(unquote(m[1], m[2]));
    for (const m of src.matchAll(/<PlaceholderPage title="([^"]+)"/g)) keys.add(m[1]);
    for (const m of src.matchAll(/pageMeta\('([^']+)'\)/g)) keys.add(m[1]);
    const rel = path.relative(appDir, file);
    if (rel === path.join('modules', 'auth', 'permissions.ts')) {
      for (const m of src.matchAll(/\b(?:r|link|group|section)\(\s*'[^']*'\s*,\s*(?:\[[^\]]*\]|[A-Z_]+)\s*,\s*'([^']+)'/g)) keys.add(m[1]);
      for (const m of src.matchAll(/\b(?:link|group|section)\(\s*'([^']+)'/g)) keys.add(m[1]);
      const labels = /ROLE_LABELS[^{]*\{([^}]*)\}/.exec(src)?.[1] ?? '';
      for (const m of labels.matchAll(literal)) keys.add(unquote(m[1], m[2]));
    }
    if (rel === path.join('modules', 'auth', 'messages.ts') || rel === path.join('modules', 'auth', 'schemas.ts')) {
      for (const m of src.matchAll(/(?::|\(|,)\s*(['"])((?:\\.|(?!\1)[^\\])*)\1/g)) {
        const v = unquote(m[1], m[2]);
        if (/^[A-Z][^]*[a-z.!]$/.test(v) && v.includes(' ')) keys.add(v);
      }
    }
    if (rel === path.join('modules', 'shell', 'layouts.tsx')) {
      const labels = /SHORTCUT_LABEL[^{]*\{([^}]*)\}/.exec(src)?.[1] ?? '';
      for (const m of labels.matchAll(literal)) keys.add(unquote(m[1], m[2]));
    }
    if (rel === path.join('modules', 'auth', 'rate-limit.server.ts')) {
      for (const m of src.matchAll(/RATE_LIMIT_MESSAGE = '([^']+)'/g)) keys.add(m[1]);
    }
  }
  // the engine's contract: how a close reason reads (web translates the label)
  for (const label of Object.values(CLOSE_REASON_LABELS)) keys.add(label);
  // pending orders: how their type, expiry and end read, what the dialog says they will do, and the price rule's messages
  for (const label of Object.values(PENDING_END_LABELS)) keys.add(label);
  for (const side of Object.values(PENDING_TYPE_LABELS)) for (const label of Object.values(side)) keys.add(label);
  for (const label of Object.values(PENDING_EXPIRY_LABELS)) keys.add(label);
  for (const side of Object.values(PENDING_SUMMARY)) for (const text of Object.values(side)) keys.add(text);
  for (const m of PENDING_PRICE_MESSAGES) keys.add(m);
  // the gateways' names (gatewayLabel)
  for (const title of Object.values(GATEWAY_TITLES)) keys.add(title);
  // what the decimal parser answers for the numbers the pages take (an order's fields, their
  // levels, a staff edit's rates at the columns' scale, money): built from the field's label
  for (const spec of DECIMAL_SPECS_SHOWN) for (const m of decimalMessages(spec)) keys.add(m);
  // a partial close's and a trailing stop's refusals (engine/src/domain/partial.ts), shown by the positions' dialogs
  for (const m of DEPTH_MESSAGES) keys.add(m);
  for (const k of [...keys]) if (!k.trim() || (/^[a-z0-9_.:/-]+$/.test(k) && /[_.:/-]/.test(k)) || k.includes('${')) keys.delete(k);
  return keys;
}

if (process.argv[1] && process.argv[1].endsWith('i18n-keys.ts')) {
  console.log(JSON.stringify([...collectKeys()].sort(), null, 1));
}
