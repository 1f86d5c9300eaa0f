import { describe, expect, it } from 'vitest';
import { asLines, binaryKeys, makeKeys, urlKeys } from '../src/keys.js';

describe('benchmark keys', () => {
  it('are deterministic, distinct, and never shared between present and absent', () => {
    expect(urlKeys(100, 'present')).toEqual(urlKeys(100, 'present'));
    const present = new Set(urlKeys(50_000, 'present'));
    expect(present.size).toBe(50_000);
    expect(urlKeys(50_000, 'absent').some((k) => present.has(k))).toBe(false);
    const bytes = binaryKeys(1000, 'present');
    expect(bytes.every((k) => k.length === 16 && k[0] === 0)).toBe(true);
    expect(binaryKeys(1000, 'absent').every((k) => k[0] === 0xff)).toBe(true);
    expect(new Set(bytes.map((k) => Buffer.from(k).toString('hex'))).size).toBe(1000);
  });

  it('look like a crawler frontier: 32 to 47 characters', () => {
    const keys = urlKeys(10_000, 'present');
    const mean = keys.reduce((sum, k) => sum + k.length, 0) / keys.length;
    expect(Math.min(...keys.map((k) => k.length))).toBeGreaterThanOrEqual(32);
    expect(Math.max(...keys.map((k) => k.length))).toBeLessThanOrEqual(47);
    expect(mean).toBeGreaterThan(35);
  });

  it('arrive as flat strings decoded from one buffer, the same text as the cons-string workload', () => {
    const flat = makeKeys('url', 1000, 'present');
    expect(flat).toEqual(makeKeys('url-cons', 1000, 'present'));
    expect(asLines(['a', '', 'héllo'])).toEqual(['a', '', 'héllo']);
  });
});
