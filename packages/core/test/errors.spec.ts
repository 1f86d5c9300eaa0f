import { describe, expect, it } from 'vitest';
import {
  BloomError,
  FormatError,
  IncompatibleFiltersError,
  InvalidArgumentError,
  UnsupportedVersionError,
} from '../src/errors.js';

describe('errors', () => {
  it('form one hierarchy with a name per class', () => {
    const cases: [Error, string, (new (...args: never[]) => Error)[]][] = [
      [new InvalidArgumentError('a'), 'InvalidArgumentError', [BloomError, Error]],
      [new IncompatibleFiltersError('b'), 'IncompatibleFiltersError', [BloomError, Error]],
      [new FormatError('c'), 'FormatError', [BloomError, Error]],
      [new UnsupportedVersionError('d', 3), 'UnsupportedVersionError', [FormatError, BloomError, Error]],
    ];
    for (const [error, name, parents] of cases) {
      expect(error.name).toBe(name);
      for (const parent of parents) expect(error).toBeInstanceOf(parent);
    }
    expect(new InvalidArgumentError('x')).not.toBeInstanceOf(FormatError);
    expect(new UnsupportedVersionError('d', 3).version).toBe(3);
  });
});
