import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import { DEFAULT_SEED, readDeserializeOptions, readFlag, readOptions, resolveSeed } from '../src/filter.js';

describe('resolveSeed', () => {
  it('defaults to the documented constant and keeps explicit seeds', () => {
    expect(resolveSeed('F', undefined)).toBe(DEFAULT_SEED);
    expect(DEFAULT_SEED).toBe(0);
    expect(resolveSeed('F', 0xffffffff)).toBe(0xffffffff);
  });

  it("draws 'random' seeds from crypto.getRandomValues", () => {
    const seeds = new Set(Array.from({ length: 20 }, () => resolveSeed('F', 'random')));
    expect(seeds.size).toBeGreaterThan(15);
    for (const seed of seeds) expect(seed >>> 0).toBe(seed);
  });

  it('rejects anything else with the allowed range', () => {
    for (const bad of [-1, 2 ** 32, 0.5, 'x', null]) {
      expect(() => resolveSeed('F.create', bad as never)).toThrow(InvalidArgumentError);
    }
    expect(() => resolveSeed('F.create', -1)).toThrow(
      "F.create: seed must be an integer in [0, 2^32 - 1] or 'random'",
    );
  });
});

describe('options', () => {
  it('refuses null, strings and arrays where an options object belongs', () => {
    expect(readOptions('F.create', undefined)).toEqual({});
    for (const bad of [null, 'random', [1], 5]) {
      expect(() => readOptions('F.create', bad as never)).toThrow(/F.create: options must be an object/);
    }
  });

  it('a getter that throws is an InvalidArgumentError naming the option', () => {
    const options = readOptions('F.create', {
      get seed(): number {
        throw new Error('boom');
      },
    });
    expect(() => options.seed).toThrow(InvalidArgumentError);
    expect(() => options.seed).toThrow('F.create: reading options.seed threw: Error: boom');
    expect(readOptions('F.create', { seed: 5 }).seed).toBe(5);
  });

  it('takes only true or false for a flag, so { verifyChecksum: 0 } cannot turn the checksum off', () => {
    expect(readFlag('F', 'options.copy', undefined, true)).toBe(true);
    expect(readFlag('F', 'options.copy', false, true)).toBe(false);
    for (const bad of [0, '', 'false', null]) {
      expect(() => readFlag('F', 'options.verifyChecksum', bad, true)).toThrow(
        /F: options.verifyChecksum must be true or false/,
      );
    }
    expect(readDeserializeOptions('F', { copy: false })).toEqual({ copy: false, verifyChecksum: true });
    expect(() => readDeserializeOptions('F', { verifyChecksum: 0 as never })).toThrow(InvalidArgumentError);
  });
});
