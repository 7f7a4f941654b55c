// Deployment defaults (issue 22 §4): TRUST_PROXY takes a hop count or the proxies' addresses only
// (`true` would believe the client-written left-most X-Forwarded-For), and production refuses to
// start on missing or development-default secrets, naming the variable.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { parseEnv, trustProxyProblem } from '~/shared/env.server.ts';

const root = path.resolve(import.meta.dirname, '../..');
const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x' };
const secrets = { ENGINE_SECRET: 'e'.repeat(64), SECRETS_KEY: 'a'.repeat(64) };

describe('TRUST_PROXY', () => {
  test('a hop count, addresses or subnets are taken; `true` and anything else are refused, saying what to set', () => {
    for (const ok of ['1', '2', '10.0.0.0/8', 'loopback', '10.0.0.1, 192.168.0.0/16', 'uniquelocal,::1', 'fd00::/8']) {
      expect(trustProxyProblem(ok), ok).toBeNull();
      expect(parseEnv({ ...base, TRUST_PROXY: ok }).TRUST_PROXY).toBe(ok);
    }
    for (const bad of ['true', 'TRUE', 'yes', '0', 'proxy.example', '1; rm']) {
      expect(trustProxyProblem(bad), bad).toMatch(/TRUST_PROXY=.* is refused: .*TRUST_PROXY=1 behind one reverse proxy/);
      expect(() => parseEnv({ ...base, TRUST_PROXY: bad })).toThrow(/TRUST_PROXY/);
    }
    expect(parseEnv({ ...base, TRUST_PROXY: '' }).TRUST_PROXY).toBeUndefined();
  });

  test('web/server.mjs stops at once on TRUST_PROXY=true, naming the variable and what to set', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'web/server.mjs'), '/nonexistent/build.js'], {
      env: { ...process.env, TRUST_PROXY: 'true', WEB_CONCURRENCY: '1', PORT: '0' }, encoding: 'utf8', timeout: 20_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('TRUST_PROXY="true" is refused');
    expect(r.stderr).toContain('TRUST_PROXY=1');
  });

  test('without web/server.mjs in front (dev, tests), a hop count takes the address the last proxy saw, never the left-most', async () => {
    const saved = { trust: process.env.TRUST_PROXY, header: process.env.CLIENT_IP_HEADER };
    try {
      process.env.TRUST_PROXY = '1';
      delete process.env.CLIENT_IP_HEADER;
      vi.resetModules();
      const { clientIp } = await import('~/shared/request.server.ts');
      const from = (xff: string) => clientIp(new Request('http://app.test/', { headers: { 'x-forwarded-for': xff } }));
      expect(from('6.6.6.6, 203.0.113.5')).toBe('203.0.113.5'); // the client wrote 6.6.6.6
      expect(from('203.0.113.5')).toBe('203.0.113.5');
      process.env.TRUST_PROXY = '2';
      vi.resetModules();
      const two = (await import('~/shared/request.server.ts')).clientIp;
      expect(two(new Request('http://app.test/', { headers: { 'x-forwarded-for': '6.6.6.6, 203.0.113.5, 10.0.0.2' } }))).toBe('203.0.113.5');
    } finally {
      if (saved.trust === undefined) delete process.env.TRUST_PROXY; else process.env.TRUST_PROXY = saved.trust;
      if (saved.header !== undefined) process.env.CLIENT_IP_HEADER = saved.header;
      vi.resetModules();
    }
  });

  test('README says what to set behind one proxy and offers no `true`', () => {
    const row = readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').find((l) => l.startsWith('| `TRUST_PROXY`'))!;
    expect(row).toContain('TRUST_PROXY=1');
    expect(row).not.toMatch(/: `true`, a hop count/);
  });
});

describe('secrets in production', () => {
  test('missing or development-default ENGINE_SECRET / SECRETS_KEY stop the web, naming the variable', () => {
    const prod = { ...base, NODE_ENV: 'production' };
    expect(() => parseEnv(prod)).toThrow(/ENGINE_SECRET: must be set in production[\s\S]*SECRETS_KEY: must be set in production/);
    expect(() => parseEnv({ ...prod, SECRETS_KEY: secrets.SECRETS_KEY })).toThrow(/ENGINE_SECRET: must be set/);
    expect(() => parseEnv({ ...prod, ENGINE_SECRET: secrets.ENGINE_SECRET })).toThrow(/SECRETS_KEY: must be set/);
    expect(() => parseEnv({ ...prod, ...secrets, ENGINE_SECRET: 'dev-only-engine-secret-change-me' })).toThrow(/ENGINE_SECRET/);
    expect(() => parseEnv({ ...prod, ...secrets, SECRETS_KEY: 'dev-only-secrets-key-change-me-0000000000' })).toThrow(/SECRETS_KEY/);
    expect(parseEnv({ ...prod, ...secrets }).NODE_ENV).toBe('production');
    // development and tests keep the defaults
    expect(parseEnv(base).ENGINE_SECRET).toMatch(/^dev-only/);
  });

  test('SESSION_SECRET is gone everywhere: sessions are random tokens stored hashed, nothing is signed with it', () => {
    const files = ['web/app/shared/env.server.ts', 'scripts/start.ts', 'docker-compose.yml', 'README.md', 'engine/src/config.ts'];
    for (const f of files) expect(readFileSync(path.join(root, f), 'utf8'), f).not.toContain('SESSION_SECRET');
  });
});
