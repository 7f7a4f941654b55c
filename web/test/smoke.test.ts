import { describe, expect, test, afterAll } from 'vitest';
import { connect } from '~/utils/db.server.ts';

const sql = connect(process.env.DATABASE_URL!, 2);
afterAll(() => sql.end());

describe('test database', () => {
  test('is migrated', async () => {
    const [row] = await sql`SELECT count(*)::int AS n FROM pgmigrations`;
    expect(row.n).toBeGreaterThan(0);
  });
});
