import { urlKeys } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { IncompatibleFiltersError, InvalidArgumentError } from '../src/errors.js';
import { toyFilterClass } from './support/toy-filter.js';

const Toy = toyFilterClass('standard');
const ToyPartitioned = toyFilterClass('partitioned');

describe('HashedFilter (through a minimal subclass)', () => {
  it('add reports new keys, has finds them, count counts the new ones', () => {
    const filter = new Toy({ bits: 10_000, hashes: 5 });
    expect(filter.add('a')).toBe(true);
    expect(filter.add('a')).toBe(false);
    expect(filter.add(new TextEncoder().encode('a'))).toBe(false);
    expect(filter.has('a')).toBe(true);
    expect(filter.has('b')).toBe(false);
    expect(filter.count).toBe(1);
  });

  it('addAll counts new keys; an array with a bad key leaves the filter unchanged', () => {
    const filter = new Toy({ bits: 10_000, hashes: 5 });
    expect(filter.addAll(['a', 'b', 'a'])).toBe(2);
    const before = filter.serialize();
    expect(() => filter.addAll(['c', 5 as never])).toThrow(
      /ToyFilter.addAll: keys\[1\] must be a string or a Uint8Array/,
    );
    expect(filter.serialize()).toEqual(before);
    expect(filter.addAll(new Set(['c', 'd']))).toBe(2);
    expect(() => filter.addAll(7 as never)).toThrow(InvalidArgumentError);
  });

  it('hasMany answers exactly like has, across batch boundaries', () => {
    const filter = new Toy({ bits: 4_000, hashes: 3 });
    const present = urlKeys(700, 'present');
    filter.addAll(present);
    const queries = [...present, ...urlKeys(700, 'absent')];
    expect(filter.hasMany(queries)).toEqual(queries.map((k) => filter.has(k)));
    expect(filter.hasMany([])).toEqual([]);
    expect(() => filter.hasMany(['a', null as never])).toThrow(/ToyFilter.hasMany: keys\[1\]/);
  });

  it('validates the explicit shape, naming the class', () => {
    expect(() => new Toy({ bits: 0, hashes: 3 })).toThrow(
      'new ToyFilter: bits must be an integer in [1, 2^48], got number 0',
    );
    expect(() => new Toy({ bits: 10, hashes: 65 })).toThrow(
      'new ToyFilter: hashes must be an integer in [1, 64], got number 65',
    );
    expect(() => new Toy({ bits: 10, hashes: 2, seed: -3 })).toThrow(/new ToyFilter: seed must be/);
    expect(() => new Toy(null as never)).toThrow(/options must be an object/);
  });

  it('rejects existing storage of the wrong size with a typed error', async () => {
    const { BitArray } = await import('../src/bit-array.js');
    expect(() => new Toy({ bits: 100, hashes: 3 }, { storage: new BitArray(99) })).toThrow(
      'new ToyFilter: state.storage must hold exactly 100 bits, got 99',
    );
    expect(() => new Toy({ bits: 100, hashes: 3 }, { storage: new BitArray(99) })).toThrow(
      InvalidArgumentError,
    );
  });

  it('rounds the partitioned layout up to a multiple of k', () => {
    expect(new ToyPartitioned({ bits: 100, hashes: 7 }).bits).toBe(105);
  });

  it('refuses to combine filters of another shape, seed or kind', () => {
    const a = new Toy({ bits: 1000, hashes: 3 });
    expect(() => a.union(new Toy({ bits: 1001, hashes: 3 }))).toThrow(/ToyFilter.union: .*bits 1000 vs 1001/);
    expect(() => a.union(new Toy({ bits: 1000, hashes: 4 }))).toThrow(/hashes 3 vs 4/);
    expect(() => a.intersect(new Toy({ bits: 1000, hashes: 3, seed: 1 }))).toThrow(/seed 0 vs 1/);
    expect(() => a.union(new ToyPartitioned({ bits: 999, hashes: 3 }) as never)).toThrow(
      IncompatibleFiltersError,
    );
    expect(() => a.union({} as never)).toThrow(/other must be a ToyFilter, got Object/);
  });
});

describe('HashedFilter.hasHash / addHash', () => {
  it('answer exactly as has / add for the key hashed with the filter seed', async () => {
    const { murmur3x86_128Into } = await import('../src/murmur3.js');
    const filter = new Toy({ bits: 5_000, hashes: 4, seed: 77 });
    const twin = new Toy({ bits: 5_000, hashes: 4, seed: 77 });
    const hash = new Uint32Array(4);
    for (const key of urlKeys(300, 'prehashed')) {
      murmur3x86_128Into(key, 77, hash);
      expect(filter.addHash(hash)).toBe(twin.add(key));
    }
    expect(filter.equals(twin)).toBe(true);
    expect(filter.count).toBe(twin.count);
    for (const key of urlKeys(300, 'prehashed-absent')) {
      murmur3x86_128Into(key, 77, hash);
      expect(filter.hasHash(hash)).toBe(twin.has(key));
    }
  });
});
