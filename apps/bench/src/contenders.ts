import { falsePositiveRate, murmur3x86_128Into } from '@bloomkit/core';
import { type FilterClass, kinds } from '@bloomkit/filters';
import { FIXED_SET_CONTENDERS } from './fixed-sets.js';

/** A key as the benchmark hands it to a contender: a URL-like string or 16 random bytes. */
export type BenchKey = string | Uint8Array;

/** One filter (or set) under test, behind the calls the benchmark measures. */
export interface Instance {
  add(key: BenchKey): void;
  has(key: BenchKey): boolean;
  /** bloomkit's batch query; absent for contenders without one. */
  hasMany?(keys: readonly BenchKey[]): boolean[];
  /** bloomkit's batch add; absent for contenders without one. */
  addAll?(keys: readonly BenchKey[]): number;
  /** Removes one copy of the key (counting and cuckoo kinds); absent for contenders that do not delete. */
  delete?(key: BenchKey): boolean;
  /** bloomkit's batch delete; absent for contenders without one. */
  deleteAll?(keys: readonly BenchKey[]): number;
  /** m, where the structure states it. */
  nominalBits(): number | undefined;
  /** The formula's false-positive rate after `n` keys, where m and k are known. */
  predictedFpr(n: number): number | undefined;
  /** The library's own serialized form (bytes, or JSON text). */
  serialize?(): Uint8Array | string;
  /** Reads it back; `inPlace` asks for bloomkit's no-copy, no-checksum path. */
  deserialize?(data: Uint8Array | string, inPlace: boolean): unknown;
  /**
   * A fixed set's build (fixed-sets.ts): its `add` only gathers keys, and `seal` builds the set of them, timed with
   * the fill. Absent for a filter that takes keys one at a time.
   */
  seal?(): void;
}

/** A contender: how to build an instance for n keys at rate p, and which key types it takes. */
export interface Contender {
  readonly id: string;
  readonly label: string;
  readonly library: 'bloomkit' | 'bloom-filters' | 'bloomfilter' | 'mnemonist' | 'Set' | 'hash only';
  /** Takes 16-byte binary keys (as Uint8Array, or Buffer views for bloom-filters). */
  readonly binary: boolean;
  /** Its memory is read as the heap's growth over the fill (a structure that states no bits: Set, XorFilter). */
  readonly measureHeap?: boolean;
  /** Built and run in the child process only, so no other library's code runs beside it (JIT state). */
  load(): Promise<(n: number, p: number) => Instance>;
}

/** Initial capacity of both scalable filters: the stream's size is unknown, so both start small. */
export const SCALABLE_INITIAL_CAPACITY = 1000;

type BloomkitFilter = {
  bits: number;
  hashes: number;
  add(key: BenchKey): boolean;
  has(key: BenchKey): boolean;
  hasMany(keys: readonly BenchKey[]): boolean[];
  addAll(keys: readonly BenchKey[]): number;
  serialize(): Uint8Array;
  delete?(key: BenchKey): boolean;
  deleteAll?(keys: readonly BenchKey[]): number;
  deleteMany?(keys: readonly BenchKey[]): boolean[];
  counterBits?: number;
};

function bloomkit(
  filter: BloomkitFilter,
  deserialize: (bytes: Uint8Array, options: { copy: boolean; verifyChecksum: boolean }) => unknown,
  predicted: ((n: number) => number) | undefined,
): Instance {
  return {
    add: (key) => filter.add(key),
    has: (key) => filter.has(key),
    hasMany: (keys) => filter.hasMany(keys),
    addAll: (keys) => filter.addAll(keys),
    ...(filter.delete === undefined ? {} : { delete: (key) => filter.delete!(key) }),
    // The batch delete: the cuckoo filter's deleteAll, the counting filter's deleteMany.
    ...(filter.deleteAll !== undefined
      ? { deleteAll: (keys) => filter.deleteAll!(keys) }
      : filter.deleteMany !== undefined
        ? { deleteAll: (keys) => filter.deleteMany!(keys).length }
        : {}),
    // The memory's bits: a counting filter's m counters take counterBits each.
    nominalBits: () => filter.bits * (filter.counterBits ?? 1),
    predictedFpr: (n) => predicted?.(n),
    serialize: () => filter.serialize(),
    deserialize: (data, inPlace) =>
      deserialize(data as Uint8Array, { copy: !inPlace, verifyChecksum: !inPlace }),
  };
}

/** bloom-filters hashes strings and Buffers; a Uint8Array key is handed over as a Buffer view (no copy). */
function asBuffer(key: BenchKey): string | Buffer {
  return typeof key === 'string' ? key : Buffer.from(key.buffer, key.byteOffset, key.byteLength);
}

type BloomFiltersLike = {
  add(key: string | Buffer): void;
  has(key: string | Buffer): boolean;
  /** CountingBloomFilter's and CuckooFilter's delete. */
  remove?(key: string | Buffer): boolean;
  saveAsJSON(): unknown;
};

/**
 * `bitsField`: the filter's own count of bits (`_size` for BloomFilter and PartitionedBloomFilter); the counting
 * filter keeps a JS array per counter, and the scalable one a list of filters, so they state no bit count.
 */
function bloomFilters(
  filter: BloomFiltersLike,
  fromJSON: (json: unknown) => unknown,
  bitsField = false,
): Instance {
  return {
    add: (key) => filter.add(key as string | Buffer),
    has: (key) => filter.has(key as string | Buffer),
    ...(filter.remove === undefined ? {} : { delete: (key) => filter.remove!(key as string | Buffer) }),
    nominalBits: () => (bitsField ? (filter as unknown as { _size: number })._size : undefined),
    predictedFpr: () => undefined,
    serialize: () => JSON.stringify(filter.saveAsJSON()),
    deserialize: (data) => fromJSON(JSON.parse(data as string)),
  };
}

/**
 * bloomkit's contenders: one per kind in the table of `@bloomkit/filters`, as the table builds them (a growing kind
 * from {@link SCALABLE_INITIAL_CAPACITY}), with the formula of its layout (summed over the sub-filters of a chain;
 * a window of n keys predicts from its slices' fills).
 */
function bloomkitContender(Class: FilterClass): Contender {
  const { name, params, layout, counterWidths } = Class.kind;
  const width = counterWidths[0] === 0 ? '' : ` (${counterWidths[0]}-bit)`;
  return {
    id: `bloomkit-${name}`,
    label: `bloomkit ${name}${width}`,
    library: 'bloomkit',
    binary: true,
    async load() {
      return (n, p) => {
        const f = Class.create(
          params === 'chain' ? SCALABLE_INITIAL_CAPACITY : n,
          p,
        ) as unknown as BloomkitFilter;
        const chain = f as unknown as {
          subFilters(): readonly { bits: number; hashes: number; count: number }[];
        };
        const window = f as unknown as { expectedFpr(): number };
        const predicted =
          // A window's rate follows its slices' fills; a cuckoo table's its load (no Bloom layout).
          params === 'ring' || params === 'cuckoo'
            ? () => window.expectedFpr()
            : params === 'chain'
              ? () =>
                  chain
                    .subFilters()
                    .reduce((sum, s) => sum + layout.falsePositiveRate(s.bits, s.count, s.hashes), 0)
              : (x: number) => layout.falsePositiveRate(f.bits, x, f.hashes);
        return bloomkit(f, (b, o) => Class.deserialize(b, o), predicted);
      };
    },
  };
}

export const CONTENDERS: readonly Contender[] = [
  // (A wrapper kind, such as the exception list, is measured by `--exceptions` over the filter it wraps; a fixed
  // set, built from its keys rather than created and added to, by fixed-sets.ts.)
  ...kinds()
    .filter((Class) => Class.kind.params !== 'wrapper' && Class.kind.params !== 'fuse')
    .map(bloomkitContender),
  ...FIXED_SET_CONTENDERS,
  {
    id: 'bloom-filters-standard',
    label: 'bloom-filters BloomFilter',
    library: 'bloom-filters',
    binary: true,
    async load() {
      const { BloomFilter } = (await import('bloom-filters')).default;
      return (n, p) =>
        bloomFilters(BloomFilter.create(n, p), (json) => BloomFilter.fromJSON(json as never), true);
    },
  },
  {
    id: 'bloom-filters-partitioned',
    label: 'bloom-filters PartitionedBloomFilter',
    library: 'bloom-filters',
    binary: true,
    async load() {
      const { PartitionedBloomFilter } = (await import('bloom-filters')).default;
      return (n, p) =>
        bloomFilters(
          PartitionedBloomFilter.create(n, p),
          (json) => PartitionedBloomFilter.fromJSON(json as never),
          true,
        );
    },
  },
  {
    id: 'bloom-filters-counting',
    label: 'bloom-filters CountingBloomFilter',
    library: 'bloom-filters',
    binary: true,
    async load() {
      const { CountingBloomFilter } = (await import('bloom-filters')).default;
      return (n, p) =>
        bloomFilters(CountingBloomFilter.create(n, p), (json) => CountingBloomFilter.fromJSON(json as never));
    },
  },
  {
    id: 'bloom-filters-scalable',
    label: 'bloom-filters ScalableBloomFilter',
    library: 'bloom-filters',
    binary: true,
    async load() {
      const { ScalableBloomFilter } = (await import('bloom-filters')).default;
      return (_n, p) =>
        bloomFilters(ScalableBloomFilter.create(SCALABLE_INITIAL_CAPACITY, p), (json) =>
          ScalableBloomFilter.fromJSON(json as never),
        );
    },
  },
  {
    id: 'bloom-filters-cuckoo',
    label: 'bloom-filters CuckooFilter',
    library: 'bloom-filters',
    binary: true,
    async load() {
      const { CuckooFilter } = (await import('bloom-filters')).default;
      return (n, p) =>
        bloomFilters(CuckooFilter.create(n, p), (json) => CuckooFilter.fromJSON(json as never));
    },
  },
  {
    id: 'bloomfilter',
    label: 'bloomfilter',
    library: 'bloomfilter',
    binary: false,
    async load() {
      const { BloomFilter } = await import('bloomfilter');
      return (n, p) => {
        const f = BloomFilter.withTargetError(n, p);
        return {
          add: (key) => f.add(key as string),
          has: (key) => f.test(key as string),
          nominalBits: () => f.m,
          predictedFpr: (x) => falsePositiveRate(f.m, x, f.k),
          serialize: () => JSON.stringify(f),
          deserialize: (data) => BloomFilter.fromJSON(JSON.parse(data as string)),
        };
      };
    },
  },
  {
    id: 'mnemonist',
    label: 'mnemonist BloomFilter',
    library: 'mnemonist',
    binary: false,
    async load() {
      const { BloomFilter } = await import('mnemonist');
      return (n, p) => {
        const f = new BloomFilter({ capacity: n, errorRate: p });
        const m = f.toJSON().length * 8;
        return {
          add: (key) => f.add(key as string),
          has: (key) => f.test(key as string),
          nominalBits: () => m,
          predictedFpr: (x) => falsePositiveRate(m, x, f.hashFunctions),
        };
      };
    },
  },
  {
    id: 'set',
    label: 'Set<string> (exact)',
    library: 'Set',
    binary: false,
    measureHeap: true,
    async load() {
      return () => {
        const set = new Set<string>();
        return {
          add: (key) => set.add(key as string),
          has: (key) => set.has(key as string),
          nominalBits: () => undefined,
          predictedFpr: () => 0,
        };
      };
    },
  },
  {
    id: 'hash-only',
    label: 'bloomkit hash only (murmur3)',
    library: 'hash only',
    binary: true,
    async load() {
      return () => {
        const out = new Uint32Array(4);
        return {
          add: (key) => murmur3x86_128Into(key, 0, out),
          has: (key) => {
            murmur3x86_128Into(key, 0, out);
            return out[0]! === 0xffffffff; // keeps the call from being optimized away; never true in practice
          },
          nominalBits: () => undefined,
          predictedFpr: () => undefined,
        };
      };
    },
  },
];

export function contenderById(id: string): Contender {
  const found = CONTENDERS.find((c) => c.id === id);
  if (found === undefined) throw new Error(`unknown contender ${id}`);
  return found;
}

/** bloom-filters' binary keys: the same bytes as Buffer views, prepared before timing. */
export function prepareKeys(contender: Contender, keys: BenchKey[]): BenchKey[] {
  if (contender.library !== 'bloom-filters') return keys;
  return keys.map((key) => asBuffer(key) as BenchKey);
}
