// What `npm start` promises: a page at the web URL and a healthy engine, with the demo data loaded.
import { describe, expect, test, afterAll } from 'vitest';
import postgres from 'postgres';

const web = process.env.E2E_BASE_URL!;
const engine = process.env.E2E_ENGINE_URL!;
const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
afterAll(() => sql.end());

describe('npm start', () => {
  test('the engine answers GET /v1/health with 200', async () => {
    const res = await fetch(`${engine}/v1/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', database: 'up' });
  });

  test('the web app serves an HTML page', async () => {
    const res = await fetch(web);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toContain('<html');
  });

  test('the first start loaded the demo data', async () => {
    const [row] = await sql`SELECT count(*)::int AS n FROM users WHERE email LIKE '%@demo.broker'`;
    expect(row.n).toBe(7);
  });
});
