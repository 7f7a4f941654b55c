// The Elysia app. main.ts listens; tests call app.handle(new Request(...)).
import { Elysia } from 'elysia';
import type { Sql } from '../db.ts';

export interface AppDeps {
  sql: Sql;
  startedAt?: Date;
}

export class HttpError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
}

export function createApp({ sql, startedAt = new Date() }: AppDeps) {
  return new Elysia({ prefix: '/v1' })
    .error({ HttpError })
    .onError(({ code, error, set }) => {
      if (code === 'HttpError') {
        set.status = error.status;
        return { message: error.message };
      }
      if (code === 'VALIDATION') {
        set.status = 400;
        return { message: 'Invalid request', details: error.all?.map((e) => ('summary' in e ? e.summary : e.message)) };
      }
      if (code === 'NOT_FOUND') {
        set.status = 404;
        return { message: 'Not found' };
      }
      console.error(error);
      set.status = 500;
      return { message: 'Something went wrong' };
    })
    .get('/health', async ({ set }) => {
      const database = await sql`SELECT 1 AS ok`.then(() => 'up' as const, () => 'down' as const);
      const healthy = database === 'up';
      set.status = healthy ? 200 : 503;
      return {
        status: healthy ? 'ok' : 'degraded',
        database,
        uptimeSeconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
      };
    });
}

export type App = ReturnType<typeof createApp>;
