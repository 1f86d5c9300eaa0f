import { BinaryFuseFilter, fingerprintBitsFor } from '@bloomkit/fuse';
import type { BenchKey, Contender, Instance } from './contenders.js';

/**
 * Contenders that hold a fixed set: built once from all their keys, never added to. In the bench's fill, `add` only
 * gathers the keys (an array push) and `seal` builds the filter of them; the fill's rate is the keys over both, so
 * it reads as the build rate a user sees who has the keys in hand. A query before `seal` is a bug of the bench.
 */

/** The calls of a built set that an instance forwards to. */
interface BuiltSet {
  has(key: BenchKey): boolean;
  hasMany?(keys: readonly BenchKey[]): boolean[];
}

/** An instance that gathers keys, builds on `seal`, then answers from the built set. */
function gathering<S extends BuiltSet>(
  build: (keys: BenchKey[]) => S,
  rest: (built: () => S) => Omit<Instance, 'add' | 'has' | 'seal'>,
): Instance {
  let keys: BenchKey[] = [];
  let set: S | undefined;
  const built = (): S => {
    if (set === undefined) throw new Error('a fixed set was queried before it was built (seal)');
    return set;
  };
  return {
    add: (key) => {
      keys.push(key);
    },
    seal: () => {
      set = build(keys);
      keys = [];
    },
    has: (key) => built().has(key),
    ...rest(built),
  };
}

/** bloomkit's binary fuse filter, 8-bit fingerprints at rates from 2^-8, 16-bit below. */
const fuse: Contender = {
  id: 'bloomkit-fuse',
  label: 'bloomkit fuse',
  library: 'bloomkit',
  binary: true,
  async load() {
    return (_n, p) => {
      const fingerprintBits = fingerprintBitsFor(Math.max(p, 2 ** -16));
      return gathering(
        (keys) => BinaryFuseFilter.build(keys, { fingerprintBits }),
        (built) => ({
          hasMany: (keys) => built().hasMany(keys),
          nominalBits: () => built().bits,
          predictedFpr: () => built().expectedFpr(),
          serialize: () => built().serialize(),
          deserialize: (data, inPlace) =>
            BinaryFuseFilter.deserialize(data as Uint8Array, { copy: !inPlace, verifyChecksum: !inPlace }),
        }),
      );
    };
  },
};

/**
 * bloom-filters' XorFilter (8-bit fingerprints at rates from 2^-8, 16-bit below): its fingerprints are BigInts, so
 * its memory is measured on the heap (`measureHeap`), not stated.
 */
const xor: Contender = {
  id: 'bloom-filters-xor',
  label: 'bloom-filters XorFilter',
  library: 'bloom-filters',
  binary: true,
  measureHeap: true,
  async load() {
    const { XorFilter } = (await import('bloom-filters')).default;
    return (_n, p) => {
      const bits = p >= 2 ** -8 ? 8 : 16;
      // Its keys are strings or Buffers (prepareKeys hands bloom-filters Buffer views of binary keys).
      type Xor = { has(key: BenchKey): boolean; saveAsJSON(): unknown };
      return gathering(
        (keys) => XorFilter.create(keys as never[], bits) as unknown as Xor,
        (built) => ({
          nominalBits: () => undefined,
          predictedFpr: () => 2 ** -bits,
          serialize: () => JSON.stringify(built().saveAsJSON()),
          deserialize: (data) => XorFilter.fromJSON(JSON.parse(data as string)),
        }),
      );
    };
  },
};

/** The fixed-set contenders, after the kinds the table builds by `create`. */
export const FIXED_SET_CONTENDERS: readonly Contender[] = [fuse, xor];
