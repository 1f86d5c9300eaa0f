import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import { assertKey, describe as describeValue } from '../src/key.js';

describe('assertKey', () => {
  it('accepts strings and Uint8Arrays (Buffer included) and rejects the rest by type', () => {
    expect(() => assertKey('a', 'F')).not.toThrow();
    expect(() => assertKey(new Uint8Array(2), 'F')).not.toThrow();
    expect(() => assertKey(Buffer.from('a'), 'F')).not.toThrow();
    expect(() => assertKey(12, 'F.add')).toThrow(
      'F.add: key must be a string or a Uint8Array, got number 12',
    );
    expect(() => assertKey(new Uint16Array(1), 'F')).toThrow(/got Uint16Array/);
    expect(() => assertKey(undefined, 'F')).toThrow(InvalidArgumentError);
  });

  it('describes values briefly', () => {
    expect(describeValue(null)).toBe('null');
    expect(describeValue('x'.repeat(50))).toBe(`string "${'x'.repeat(40)}…"`);
    expect(describeValue(10n)).toBe('bigint 10');
    expect(describeValue(Object.create(null))).toBe('object');
  });
});
