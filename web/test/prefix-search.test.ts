// Prefix search (shared/prefix-search.server.ts): the range an index serves and the LIKE pattern
// agree with "starts with" for any text, wildcards and non-ASCII included.
import { afterAll, describe, expect, test } from 'vitest';
import { likeEscape, prefixEnd, prefixMatch } from '~/shared/prefix-search.server.ts';
import { testSql } from './helpers.ts';

const sql = testSql();
afterAll(() => sql.end());

describe('prefix search', () => {
  test('the end of the range is the prefix with its last character moved on', () => {
    expect(prefixEnd('sofia')).toBe('sofib');
    expect(prefixEnd('mü')).toBe('mý');
    expect(prefixEnd('a\u{10FFFF}')).toBe('b');
    expect(prefixEnd('\u{10FFFF}')).toBeNull();
    expect(prefixEnd('x\uD7FF')).toBe('x\uE000');
    expect(likeEscape('50%_off\\')).toBe('50\\%\\_off\\\\');
  });

  test('matches exactly the values that start with the prefix', async () => {
    const values = ['sofia', 'sofia garcia', 'sofib', 'sofi', 'müller', 'mü', 'mz', 'a%b', 'axb', 'a_b', 'emoji 😀 x', 'emoji 😁'];
    for (const prefix of ['sofia', 'mü', 'a%', 'a_', 'emoji 😀', 's', 'zzz']) {
      const rows = await sql`SELECT v FROM unnest(${values}::text[]) AS t(v) WHERE ${prefixMatch(sql, sql`v`, prefix)}`;
      expect(rows.map((r) => r.v as string).sort(), prefix).toEqual(values.filter((v) => v.startsWith(prefix)).sort());
    }
  });
});
