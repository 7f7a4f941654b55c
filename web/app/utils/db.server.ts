// One postgres.js pool per web process. Server modules take `sql` as a parameter so
// tests can hand them a test database; routes pass `db()`.
import postgres from 'postgres';
import { env } from './env.server.ts';

export type Sql = postgres.Sql<{ bigint: bigint }>;

declare global {
  // survives Vite's hot reloads in development
  var __brokerSql: Sql | undefined;
}

export function connect(url: string, max = 10): Sql {
  return postgres(url, { max, onnotice: () => {}, types: { bigint: postgres.BigInt } });
}

export function db(): Sql {
  globalThis.__brokerSql ??= connect(env().DATABASE_URL);
  return globalThis.__brokerSql;
}
