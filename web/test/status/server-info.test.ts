// Server Information: the admin's page reads the machine's CPU and memory; other roles are refused.
import { afterAll, describe, expect, test } from 'vitest';
import os from 'node:os';
import { loader } from '~/routes/_staff.admin.status.[server].tsx';
import { cpuUsage, serverInfo } from '~/modules/status/server-info.server.ts';
import { createUser, get, sessionFor, settle, testSql } from '../helpers.ts';

const sql = testSql();
afterAll(() => sql.end());

describe('server information', () => {
  test('CPU model, usage out of 100, logical cores, memory usage out of 100, total memory in MB', async () => {
    const s = await serverInfo();
    expect(s.cpuModel).toBe(os.cpus()[0].model.trim());
    expect(s.cores).toBe(os.availableParallelism());
    expect(s.totalMemoryMb).toBe(Math.round(os.totalmem() / 1024 / 1024));
    for (const v of [s.cpuUsage, s.memoryUsage]) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(100);
    }
    expect(s.memoryUsage).toBeGreaterThan(0);
  });

  test('CPU usage sees a busy core', async () => {
    await cpuUsage(); // a fresh reading
    const until = Date.now() + 300;
    while (Date.now() < until) Math.sqrt(Math.random()); // one core busy
    // one of the machine's cores was busy the whole time: at least a share of it shows
    expect(await cpuUsage()).toBeGreaterThan(100 / os.cpus().length / 3);
  });

  test('only the admin opens it', async () => {
    for (const roleId of [1, 2, 3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      const r = await settle(Promise.resolve().then(() => loader({ request: get('/admin/status/server', cookie), params: {}, context: {} })));
      if (roleId === 1) expect((r as { server: { cores: number } }).server.cores).toBeGreaterThan(0);
      else expect((r as Response).status, `role ${roleId}`).toBe(403);
    }
  });
});
