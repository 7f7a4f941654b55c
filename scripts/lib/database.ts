// The database `npm start`, `npm run db:*` and seeds use: DATABASE_URL's when set,
// else the embedded server kept under .data/pg.
import path from 'node:path';
import { repoRoot, startEmbeddedPostgres, createDatabase, withDatabase, type PostgresServer } from './postgres.ts';

export const EMBEDDED_PG_PORT = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
export const APP_DATABASE = 'broker';

export async function openAppDatabase(log: (l: string) => void = () => {}): Promise<{ url: string; server?: PostgresServer }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL };
  log(`starting embedded PostgreSQL on 127.0.0.1:${EMBEDDED_PG_PORT} (data in .data/pg)`);
  const server = await startEmbeddedPostgres({
    dataDir: path.join(repoRoot, '.data', 'pg'),
    port: EMBEDDED_PG_PORT,
    persistent: true,
  });
  await createDatabase(server.adminUrl, APP_DATABASE);
  return { url: withDatabase(server.adminUrl, APP_DATABASE), server };
}
