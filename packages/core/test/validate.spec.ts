import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import { checkHashAt, checkInteger, checkOneOf, checkOpenInterval, keyList } from '../src/validate.js';

describe('validate', () => {
  it('checkInteger accepts integers in range and names range and value otherwise', () => {
    expect(checkInteger('F', 'n', 5, 1, 10)).toBe(5);
    expect(() => checkInteger('F', 'n', 0, 1, 10)).toThrow(
      'F: n must be an integer in [1, 10], got number 0',
    );
    expect(() => checkInteger('F', 'bits', 2.5, 1, 2 ** 48)).toThrow('[1, 2^48], got number 2.5');
    expect(() => checkInteger('F', 's', '3', 0, 2 ** 32 - 1)).toThrow('[0, 2^32 - 1], got string "3"');
    expect(() => checkInteger('F', 'n', Number.NaN, 1, 10)).toThrow(InvalidArgumentError);
  });

  it('checkOpenInterval excludes the ends, NaN and non-numbers', () => {
    expect(checkOpenInterval('F', 'fpr', 0.5, 0, 1)).toBe(0.5);
    for (const bad of [0, 1, -0.1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '0.5', null]) {
      expect(() => checkOpenInterval('F', 'fpr', bad, 0, 1)).toThrow(/F: fpr must be in \(0, 1\)/);
    }
  });

  it('checkOneOf lists the allowed values', () => {
    expect(checkOneOf('F', 'growth', 2, [2, 4])).toBe(2);
    expect(() => checkOneOf('F', 'growth', 3, [2, 4])).toThrow('F: growth must be one of 2, 4, got number 3');
  });
});

describe('keyList', () => {
  it('copies an array, drains any other iterable, and names the first bad key', () => {
    const array = ['a', new Uint8Array([1])];
    const list = keyList('T', array);
    expect(list).toEqual(array);
    expect(list).not.toBe(array);
    expect(keyList('T', new Set(['x', 'y']))).toEqual(['x', 'y']);
    expect(() => keyList('T', ['a', 1])).toThrow('T: keys[1] must be a string or a Uint8Array, got number 1');
    expect(() => keyList('T', 'ab')).toThrow(/got a string/);
    expect(() => keyList('T', 5)).toThrow(/must be an iterable/);
    expect(() => keyList('T', [undefined, 'b'])).toThrow(/keys\[0\]/);
  });
});

describe('checkHashAt', () => {
  it('takes four hash words at hash[at ..] of an Int32Array, and refuses a short array, a bad offset or another type', () => {
    expect(() => checkHashAt('f.addHash', new Int32Array(4), 0)).not.toThrow();
    expect(() => checkHashAt('f.addHash', new Int32Array(8), 4)).not.toThrow();
    for (const [hash, at] of [
      [new Int32Array(3), 0],
      [new Int32Array(8), 5],
      [new Int32Array(8), -1],
      [new Int32Array(8), 1.5],
      [new Int32Array(8), Number.NaN],
      [new Uint32Array(4), 0],
      [[1, 2, 3, 4], 0],
      [undefined, 0],
    ] as const) {
      expect(() => checkHashAt('f.addHash', hash, at)).toThrow(InvalidArgumentError);
    }
    expect(() => checkHashAt('f.addHash', new Int32Array(2), 0)).toThrow(
      /^f\.addHash: hash must be an Int32Array holding the key's 4 hash words at hash\[at \.\. at \+ 3\]/,
    );
  });
});
