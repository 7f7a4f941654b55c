// Prefix search that a `text_pattern_ops` index serves whatever plan PostgreSQL picks: a
// parameterised `LIKE $1` can use such an index only in a plan made for the value (a cached
// generic plan cannot), while the range `col ~>=~ $lo AND col ~<~ $hi` (the pattern operators
// the index is built for) can use it in any plan. The LIKE stays as the exact check.
import type postgres from 'postgres';
import type { Db } from './db.server.ts';

/** `term` with LIKE's wildcards and escape character taken literally. */
export function likeEscape(term: string): string {
  return term.replace(/[\\%_]/g, (c) => '\\' + c);
}

/**
 * The first string after every string that starts with `prefix`, in byte order (UTF-8 keeps
 * code point order): the prefix with its last code point incremented. Null when there is none.
 */
export function prefixEnd(prefix: string): string | null {
  const chars = Array.from(prefix);
  while (chars.length) {
    const last = chars.pop()!.codePointAt(0)!;
    let next = last + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000; // surrogates are not characters
    if (next <= 0x10ffff) return chars.join('') + String.fromCodePoint(next);
  }
  return null;
}

/** `column` starts with `prefix` (compare lower-cased columns with a lower-cased prefix). */
export function prefixMatch(sql: Db, column: postgres.Fragment, prefix: string): postgres.Fragment {
  const end = prefixEnd(prefix);
  return sql`(${column} ~>=~ ${prefix} ${end === null ? sql`` : sql`AND ${column} ~<~ ${end}`} AND ${column} LIKE ${likeEscape(prefix) + '%'})`;
}
