// The one instrument search (docs/specs.md#client-validation): the customer dashboard's search box and the
// admin's instrument lists rank with it. Fuzzy matching alone found 'Ripple' for 'apple' and
// 'SUGAR_USD' for 'EUR/USD' (any '_USD' looks alike), so matches are ranked by kind, and the fuzzy
// pass (typos: 'bitcon') runs only when nothing matched plainly.
import Fuse from 'fuse.js';

export interface Searchable { name: string; base: string; quote: string; alias?: string | null }

/** A symbol as typed or stored, without its separators or case: 'EUR/USD', 'eur_usd', 'EURUSD' alike. */
const flat = (s: string | null | undefined) => (s ?? '').toLowerCase().replace(/[\s/_.-]+/g, '');
const words = (s: string | null | undefined) => (s ?? '').toLowerCase().split(/[^\p{L}\p{N}&]+/u).filter(Boolean);

/** Fuse's threshold for the typo pass: 0 is exact, 1 anything; the spec's 0.3. */
export const FUZZY_THRESHOLD = 0.3;

/**
 * Rank of one instrument for a query, lower first; null when it does not match:
 * 0 the symbol or alias exactly (with or without '/', '_'), 1 a prefix of the symbol or alias,
 * 2 a word of the alias starting with it, or the same base as a pair typed 'EUR/…',
 * 3 the base or quote currency itself, or the symbol or alias containing it.
 */
function rank(i: Searchable, q: string, tokens: string[]): number | null {
  const fq = flat(q);
  if (!fq) return null;
  const name = flat(i.name), pair = flat(i.base) + flat(i.quote), alias = flat(i.alias);
  if (name === fq || pair === fq || (alias && alias === fq)) return 0;
  if (name.startsWith(fq) || pair.startsWith(fq) || (alias && alias.startsWith(fq))) return 1;
  const aliasWords = words(i.alias);
  if (tokens.length === 1 && aliasWords.some((w) => w.startsWith(tokens[0]))) return 2;
  if (tokens.length > 1 && flat(i.base) === tokens[0]) return 2;
  if (tokens.length === 1 && (flat(i.base) === fq || flat(i.quote) === fq)) return 3;
  if (fq.length >= 3 && (name.includes(fq) || (alias && alias.includes(fq)))) return 3;
  return null;
}

/**
 * The instruments matching a query, best first (ties keep the list's order); an empty query is
 * the whole list. No plain match: the fuzzy pass over symbol, base, quote and alias, for a query of
 * letters, digits and spaces.
 */
export function searchInstruments<T extends Searchable>(list: T[], query: string): T[] {
  const q = query.trim();
  if (!q) return list;
  const tokens = words(q);
  const ranked = list.map((item, at) => ({ item, at, r: rank(item, q, tokens) }))
    .filter((x): x is { item: T; at: number; r: number } => x.r !== null)
    .sort((a, b) => a.r - b.r || a.at - b.at);
  if (ranked.length) return ranked.map((x) => x.item);
  // typos are forgiven in words only: a symbol typed with other characters ('EUR/USF', 'X%') is exact
  if (!/^[\p{L}\p{N}\s]+$/u.test(q)) return [];
  const fuse = new Fuse(list, { keys: ['name', 'base', 'quote', 'alias'], threshold: FUZZY_THRESHOLD, ignoreLocation: true });
  return fuse.search(q.replace(/[/\s]+/g, '_')).map((r) => r.item);
}
