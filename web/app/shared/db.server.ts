// One postgres.js pool per web process. Server modules take `sql` as a parameter so
// tests can hand them a test database; routes pass `db()`.
import postgres from 'postgres';
import { env } from './env.server.ts';
import { enableLiveCache } from './live-cache.server.ts';
import { onNotice } from './statement-progress.server.ts';

import type { Sql } from './sql.ts';

export type { Db, Sql } from './sql.ts';

/**
 * int8 (ids, counts) read as a JS number, so every row is JSON-serialisable (a BigInt makes
 * JSON.stringify throw: /auth/user answered 500). Ids and counts stay far below 2^53; a value
 * beyond it is kept as its exact string rather than rounded. Money is numeric, never int8.
 */
const int8: postgres.PostgresType<bigint | number | string> = {
  to: 20,
  from: [20],
  parse: (x: string) => (Number.isSafeInteger(Number(x)) ? Number(x) : x),
  serialize: (x: number | string | bigint) => x.toString(),
};

declare global {
  // survives Vite's hot reloads in development
  var __brokerSql: Sql | undefined;
}

export function connect(url: string, max = 10): Sql {
  // notices: only a long statement's progress is read (statement-progress.server.ts)
  return postgres(url, { max, onnotice: onNotice, types: { bigint: int8 } });
}

export function db(): Sql {
  if (!globalThis.__brokerSql) {
    globalThis.__brokerSql = connect(env().DATABASE_URL);
    // settings, languages and translations are kept in the process until a NOTIFY says they changed
    void enableLiveCache(globalThis.__brokerSql, { app: true });
  }
  return globalThis.__brokerSql;
}
