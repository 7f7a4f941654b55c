// `npm start` names what failed and what to do: bad variables are refused before anything
// starts, and any other failure prints its message, cause and stack, never '[start] undefined'.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { describeFailure, startConfig, StartConfigError } from '../../../scripts/lib/config.ts';

const root = path.resolve(import.meta.dirname, '../../..');

describe('startConfig', () => {
  test('defaults, and ports as given', () => {
    expect(startConfig({})).toEqual({ webPort: 3000, enginePort: 4000, embeddedPgPort: 54329 });
    expect(startConfig({ WEB_PORT: '3100', ENGINE_PORT: ' 4100 ' })).toMatchObject({ webPort: 3100, enginePort: 4100 });
  });

  test.each([
    [{ WEB_PORT: 'abc' }, /WEB_PORT="abc" is not a port/],
    [{ ENGINE_PORT: '70000' }, /ENGINE_PORT="70000" is not a port/],
    [{ WEB_PORT: '3.5' }, /WEB_PORT="3.5" is not a port/],
    [{ EMBEDDED_PG_PORT: '-1' }, /EMBEDDED_PG_PORT="-1" is not a port/],
    [{ WEB_PORT: '4000' }, /ENGINE_PORT and WEB_PORT are both 4000/],
    [{ DATABASE_URL: 'localhost' }, /DATABASE_URL="localhost" is not a URL/],
    [{ APP_URL: 'broker.example' }, /APP_URL="broker.example" is not a URL/],
  ])('%j is refused with the variable named', (env, message) => {
    expect(() => startConfig(env)).toThrow(StartConfigError);
    expect(() => startConfig(env)).toThrow(message);
  });
});

describe('describeFailure', () => {
  test.each([undefined, null, '', {}])('%j thrown still reads as a failure with a hint', (e) => {
    const text = describeFailure(e);
    expect(text).toMatch(/^failed: /);
    expect(text).not.toMatch(/^failed: undefined$/m);
    expect(text).toMatch(/run npm start again/);
  });

  test('an error shows its message, code, stack and cause', () => {
    const e = Object.assign(new Error('listen failed', { cause: new Error('port 3000 taken') }), { code: 'EADDRINUSE' });
    const text = describeFailure(e);
    expect(text).toMatch(/^failed: listen failed \(EADDRINUSE\)/);
    expect(text).toMatch(/\n\s+at /);
    expect(text).toMatch(/caused by: port 3000 taken/);
    expect(text).toMatch(/WEB_PORT, ENGINE_PORT or EMBEDDED_PG_PORT/);
  });
});

test('npm start with WEB_PORT=abc names the variable and starts nothing', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root, encoding: 'utf8', timeout: 60_000,
    env: { ...process.env, WEB_PORT: 'abc', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
  });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('[start] invalid configuration:');
  expect(r.stderr).toContain('WEB_PORT="abc" is not a port');
  expect(r.stderr).toContain('Nothing was started');
  expect(r.stderr + r.stdout).not.toContain('[start] undefined');
}, 60_000);
