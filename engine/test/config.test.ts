// Deployment defaults (issue 22 §4): in production the engine refuses to start on a missing or
// development-default ENGINE_SECRET or SECRETS_KEY, naming the variable.
import { describe, expect, test } from 'bun:test';
import { loadConfig } from '../src/config.ts';

const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x' };
const secrets = { ENGINE_SECRET: 'e'.repeat(64), SECRETS_KEY: 'a'.repeat(64) };

describe('engine configuration in production', () => {
  test('missing or default secrets are refused, each named', () => {
    const prod = { ...base, NODE_ENV: 'production' };
    expect(() => loadConfig(prod)).toThrow(/ENGINE_SECRET: must be set in production[\s\S]*SECRETS_KEY: must be set in production/);
    expect(() => loadConfig({ ...prod, ENGINE_SECRET: secrets.ENGINE_SECRET })).toThrow(/SECRETS_KEY: must be set in production/);
    expect(() => loadConfig({ ...prod, SECRETS_KEY: secrets.SECRETS_KEY })).toThrow(/ENGINE_SECRET: must be set in production/);
    expect(() => loadConfig({ ...prod, ...secrets, SECRETS_KEY: 'dev-only-secrets-key-change-me-0000000000' })).toThrow(/SECRETS_KEY/);
    expect(loadConfig({ ...prod, ...secrets }).SECRETS_KEY).toBe(secrets.SECRETS_KEY);
  });

  test('development keeps its defaults', () => {
    expect(loadConfig(base).ENGINE_SECRET).toMatch(/^dev-only/);
  });
});
