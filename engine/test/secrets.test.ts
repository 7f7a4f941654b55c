import { describe, expect, test } from 'bun:test';
import { decryptSecret, encryptSecret, isEncrypted, isMaskedSecret, maskSecret, secretsKey } from '../src/contract/secrets.ts';

const key = secretsKey('a'.repeat(64));

describe('secrets at rest', () => {
  test('round-trips and never stores the plain text', () => {
    const stored = encryptSecret('sk_live_1234567890', key);
    expect(isEncrypted(stored)).toBe(true);
    expect(stored).not.toContain('sk_live');
    expect(decryptSecret(stored, key)).toBe('sk_live_1234567890');
  });

  test('the same secret encrypts differently each time', () => {
    expect(encryptSecret('x', key)).not.toBe(encryptSecret('x', key));
  });

  test('a tampered value or a wrong key is refused', () => {
    const stored = encryptSecret('secret', key);
    const tampered = stored.slice(0, -2) + (stored.endsWith('A') ? 'BB' : 'AA');
    expect(() => decryptSecret(tampered, key)).toThrow();
    expect(() => decryptSecret(stored, secretsKey('another key entirely'))).toThrow();
  });

  test('masks for display', () => {
    expect(maskSecret('')).toBe('');
    expect(maskSecret('abc')).toBe('••••');
    expect(maskSecret('abcdefgh1234')).toBe('••••1234');
    // the last four only: nothing of the start (issue 22, stored secrets)
    expect(maskSecret('pk_test_ABCDEFGHIJ')).toBe('••••GHIJ');
    expect(isMaskedSecret('••••GHIJ')).toBe(true);
    expect(isMaskedSecret(' ••••')).toBe(true);
    expect(isMaskedSecret('pk_test_ABCDEFGHIJ')).toBe(false);
    expect(isMaskedSecret('')).toBe(false);
  });
});
