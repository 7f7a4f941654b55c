import { describe, expect, test, afterAll } from 'bun:test';
import { connect } from '../src/db.ts';
import { createApp } from '../src/http/app.ts';

const sql = connect(process.env.DATABASE_URL!, { max: 2 });
afterAll(() => sql.end());

describe('GET /v1/health', () => {
  test('answers 200 with the database up', async () => {
    const res = await createApp({ sql }).handle(new Request('http://engine/v1/health'));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', database: 'up' });
  });

  test('answers 503 when the database is unreachable', async () => {
    const dead = connect('postgres://nobody@127.0.0.1:1/none', { max: 1 });
    const res = await createApp({ sql: dead }).handle(new Request('http://engine/v1/health'));
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ database: 'down' });
    await dead.end();
  });

  test('unknown routes answer 404 with a message', async () => {
    const res = await createApp({ sql }).handle(new Request('http://engine/v1/nope'));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'Not found' });
  });
});
