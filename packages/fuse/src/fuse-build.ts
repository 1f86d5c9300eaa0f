import { newKernelBytes } from '@bloomkit/core/internal';
import { mixKey, SplitMix64, slotsOf } from './fuse-hash.js';
import { type FuseLayout, fuseLayout } from './fuse-layout.js';
import { OUT } from './u64.js';
import { kernelBuildSteps } from './wasm/fuse-build-steps.js';

/** What a build gives: the layout, the 64-bit seed that worked (high, low), the fingerprints and the distinct keys. */
export interface FuseBuild {
  readonly layout: FuseLayout;
  readonly seedHigh: number;
  readonly seedLow: number;
  readonly fingerprints: Uint8Array | Uint16Array;
  /** The fingerprints' bytes, as allocated (in a kernel memory from 256 KiB). */
  readonly bytes: Uint8Array;
  /** Distinct keys the filter holds. */
  readonly keys: number;
}

/** The reference gives up after this many seeds (`XOR_MAX_ITERATIONS`); each succeeds with probability above 1/2. */
export const MAX_ATTEMPTS = 100;

/**
 * A build's tables and the four steps of one seed's attempt over them (placeInBuckets, countSlots, peel, assign),
 * in JavaScript arrays ({@link ArraySteps}) or in fuse-build.wat's memory (wasm/fuse-build-steps.ts); both give the
 * same bytes. `keys` holds the (low, high) words of the keys, `starts` each bucket's first entry.
 */
export interface BuildSteps {
  readonly keys: Uint32Array;
  readonly starts: Uint32Array;
  /** Clears what an attempt wrote: the placement's first `size` entries, every count and XOR. */
  clear(size: number): void;
  place(size: number, blockBits: number, seedHigh: number, seedLow: number): void;
  /** The duplicates found, or −1 when a slot's count overflowed. */
  count(size: number): number;
  /** How many hashes were peeled. */
  peel(): number;
  /** Writes the fingerprints of the `size` peeled hashes into `bytes` (zero before; u16 little-endian when wide). */
  assign(size: number, bytes: Uint8Array, bits: 8 | 16): void;
}

/** Makes a build's steps in fuse-build.wat's memory, or undefined where it does not load or the build is too large. */
export type KernelStepsMaker = (
  keys: Uint32Array,
  layout: FuseLayout,
  block: number,
) => BuildSteps | undefined;

/**
 * Builds a binary fuse filter of `bits`-bit fingerprints from 64-bit keys, given as (low, high) u32 pairs in `keys`
 * (the little-endian words of a BigUint64Array), exactly as the reference's `binary_fuse8_populate` /
 * `binary_fuse16_populate` does (FastFilter/xor_singleheader): the same seeds in the same order, the same placement
 * of the hashes into segment buckets, the same peeling order, the same handling of duplicate keys (found while
 * counting, or by sorting and removing them when a build fails), so that the fingerprints are byte for byte the
 * reference's. `keys` is only read: each kind of steps builds from its own copy (sorted when duplicates make a
 * build fail, as the reference sorts its input), so the caller's array is left as it was. The steps run on fuse-build.wat where it loads (under core's one switch), else in
 * JavaScript. Returns undefined after {@link MAX_ATTEMPTS} failed seeds.
 *
 * Temporary memory, n keys and c = arrayLength ≈ 1.125·n slots: 8(n + 1) bytes of hashes in placement order, 13c
 * (a 64-bit XOR of hashes, a count and a queue entry per slot) and n of peeling sides: about 23 bytes a key, as
 * the reference's (and 8n more for the keys and 2c for the fingerprints in fuse-build.wat's memory).
 */
export function populate(keys: Uint32Array, bits: 8 | 16): FuseBuild | undefined {
  let size = keys.length / 2;
  const layout = fuseLayout(size);
  const capacity = layout.arrayLength;
  let blockBits = 1;
  while (2 ** blockBits < layout.segmentCount) blockBits++;
  const block = 2 ** blockBits;
  const steps = kernelBuildSteps(keys, layout, block) ?? new ArraySteps(keys, layout, block);
  const rng = new SplitMix64();
  rng.next();
  let seedHigh = OUT[0]!;
  let seedLow = OUT[1]!;
  for (let attempt = 0; ; attempt++) {
    if (attempt + 1 > MAX_ATTEMPTS) return undefined;
    if (attempt > 0) {
      // A failed seed: the next one, from clean tables (the placement's first `size` entries only, as the reference).
      steps.clear(size);
      rng.next();
      seedHigh = OUT[0]!;
      seedLow = OUT[1]!;
    }
    bucketStarts(steps.starts, size, blockBits, bits);
    steps.place(size, blockBits, seedHigh, seedLow);
    const duplicates = steps.count(size);
    if (duplicates < 0) continue;
    const peeled = steps.peel();
    if (peeled + duplicates === size) {
      size = peeled;
      break;
    }
    if (duplicates > 0) size = sortAndRemoveDuplicates(steps.keys, size);
  }
  // In a kernel memory from 256 KiB (core's newKernelBytes), where the batch lookup runs on fuse.wat.
  const bytes = newKernelBytes(capacity * (bits / 8));
  steps.assign(size, bytes, bits);
  const fingerprints = bits === 8 ? bytes : new Uint16Array(bytes.buffer, bytes.byteOffset, capacity);
  return { layout, seedHigh, seedLow, fingerprints, bytes, keys: size };
}

/**
 * Bucket b of the placement begins at ⌊b·size / 2^blockBits⌋. The 8-bit reference truncates b·size to 32 bits
 * before the shift, the 16-bit one after: both are kept.
 */
function bucketStarts(starts: Uint32Array, size: number, blockBits: number, bits: 8 | 16): void {
  const shift = 2 ** blockBits;
  for (let i = 0; i < starts.length; i++) {
    const product = i * size; // below 2^53: i < 2^14 and size < 2^32 for every set this package builds
    starts[i] = Math.floor((bits === 8 ? product % 2 ** 32 : product) / shift);
  }
}

/** The steps in JavaScript typed arrays, 64-bit values as (low, high) pairs of u32. */
class ArraySteps implements BuildSteps {
  readonly keys: Uint32Array;
  readonly starts: Uint32Array;
  private readonly layout: FuseLayout;
  /** Hashes in placement order, then peeling order: (low, high) pairs, one more for the reference's sentinel. */
  private readonly order: Uint32Array;
  private readonly alone: Uint32Array;
  private readonly counts: Uint8Array;
  private readonly sides: Uint8Array;
  private readonly xors: Uint32Array;
  private readonly slots = new Uint32Array(5);

  constructor(keys: Uint32Array, layout: FuseLayout, block: number) {
    const size = keys.length / 2;
    const capacity = layout.arrayLength;
    this.keys = keys.slice();
    this.layout = layout;
    this.starts = new Uint32Array(block);
    this.order = new Uint32Array(2 * (size + 1));
    this.order[2 * size] = 1;
    this.alone = new Uint32Array(capacity);
    this.counts = new Uint8Array(capacity);
    this.sides = new Uint8Array(size);
    this.xors = new Uint32Array(2 * capacity);
  }

  clear(size: number): void {
    this.order.fill(0, 0, 2 * size);
    this.counts.fill(0);
    this.xors.fill(0);
  }

  place(size: number, blockBits: number, seedHigh: number, seedLow: number): void {
    placeInBuckets(this.keys, size, this.order, this.starts, blockBits, seedHigh, seedLow);
  }

  count(size: number): number {
    return countSlots(this.layout, this.order, size, this.counts, this.xors);
  }

  peel(): number {
    return peel(this.layout, this.order, this.counts, this.xors, this.alone, this.sides, this.slots);
  }

  assign(size: number, bytes: Uint8Array, bits: 8 | 16): void {
    const fingerprints =
      bits === 8 ? bytes : new Uint16Array(bytes.buffer, bytes.byteOffset, this.layout.arrayLength);
    assign(this.layout, this.order, this.sides, size, fingerprints, this.slots);
  }
}

/**
 * Puts each key's mixed hash into `order`, bucketed by its top `blockBits` bits: bucket b begins at `starts[b]`
 * ({@link bucketStarts}) and a full bucket spills into the next free one (the reference's counting sort, which makes
 * a key's three slots land near the previous key's).
 */
function placeInBuckets(
  keys: Uint32Array,
  size: number,
  order: Uint32Array,
  startPos: Uint32Array,
  blockBits: number,
  seedHigh: number,
  seedLow: number,
): void {
  const mask = startPos.length - 1;
  for (let i = 0; i < size; i++) {
    mixKey(keys[2 * i + 1]! | 0, keys[2 * i]! | 0, seedHigh, seedLow);
    const high = OUT[0]!;
    const low = OUT[1]!;
    let bucket = high >>> (32 - blockBits);
    while ((order[2 * startPos[bucket]!]! | order[2 * startPos[bucket]! + 1]!) !== 0) {
      bucket = (bucket + 1) & mask;
    }
    const at = 2 * startPos[bucket]!;
    order[at] = low;
    order[at + 1] = high;
    startPos[bucket]!++;
  }
}

/**
 * Adds each hash to its three slots: `counts` holds 4 × (hashes in the slot) plus, in its low 2 bits, the XOR of
 * the sides (0, 1, 2) they came in by; `xors` the XOR of the hashes. A hash that leaves one of its slots with a zero
 * XOR and exactly two hashes is a duplicate of the other: taken back out and counted. Returns the duplicates, or −1
 * when a slot's count overflowed (more than 63 hashes in one slot: the reference's `error`).
 */
function countSlots(
  layout: FuseLayout,
  order: Uint32Array,
  size: number,
  counts: Uint8Array,
  xors: Uint32Array,
): number {
  let error = false;
  let duplicates = 0;
  for (let i = 0; i < size; i++) {
    const low = order[2 * i]! | 0;
    const high = order[2 * i + 1]! | 0;
    slotsOf(layout, high, low, three);
    const h0 = three[0]!;
    const h1 = three[1]!;
    const h2 = three[2]!;
    counts[h0]! += 4;
    xors[2 * h0]! ^= low;
    xors[2 * h0 + 1]! ^= high;
    counts[h1]! += 4;
    counts[h1]! ^= 1;
    xors[2 * h1]! ^= low;
    xors[2 * h1 + 1]! ^= high;
    counts[h2]! += 4;
    xors[2 * h2]! ^= low;
    xors[2 * h2 + 1]! ^= high;
    counts[h2]! ^= 2;
    const andLow = xors[2 * h0]! & xors[2 * h1]! & xors[2 * h2]!;
    const andHigh = xors[2 * h0 + 1]! & xors[2 * h1 + 1]! & xors[2 * h2 + 1]!;
    if (
      (andLow | andHigh) === 0 &&
      (emptyPair(counts, xors, h0) || emptyPair(counts, xors, h1) || emptyPair(counts, xors, h2))
    ) {
      duplicates++;
      counts[h0]! -= 4;
      xors[2 * h0]! ^= low;
      xors[2 * h0 + 1]! ^= high;
      counts[h1]! -= 4;
      counts[h1]! ^= 1;
      xors[2 * h1]! ^= low;
      xors[2 * h1 + 1]! ^= high;
      counts[h2]! -= 4;
      counts[h2]! ^= 2;
      xors[2 * h2]! ^= low;
      xors[2 * h2 + 1]! ^= high;
    }
    if (counts[h0]! < 4 || counts[h1]! < 4 || counts[h2]! < 4) error = true;
  }
  return error ? -1 : duplicates;
}

/** The three slots of the hash being counted. */
const three = new Uint32Array(3);

/** A slot holding exactly two hashes whose XOR is 0: the same hash twice. */
function emptyPair(counts: Uint8Array, xors: Uint32Array, slot: number): boolean {
  return xors[2 * slot]! === 0 && xors[2 * slot + 1]! === 0 && counts[slot] === 8;
}

/**
 * Peels the hypergraph: a slot with one hash left gives that hash (its side noted in `sides`), which is then taken
 * out of its two other slots, and so on. The peeled hashes go to `order` in peeling order. Returns how many.
 */
function peel(
  layout: FuseLayout,
  order: Uint32Array,
  counts: Uint8Array,
  xors: Uint32Array,
  alone: Uint32Array,
  sides: Uint8Array,
  slots: Uint32Array,
): number {
  const capacity = layout.arrayLength;
  let queued = 0;
  for (let i = 0; i < capacity; i++) {
    alone[queued] = i;
    if (counts[i]! >>> 2 === 1) queued++;
  }
  let stacked = 0;
  while (queued > 0) {
    queued--;
    const index = alone[queued]!;
    if (counts[index]! >>> 2 !== 1) continue;
    const low = xors[2 * index]! | 0;
    const high = xors[2 * index + 1]! | 0;
    slotsOf(layout, high, low, slots);
    slots[3] = slots[0]!;
    slots[4] = slots[1]!;
    const found = counts[index]! & 3;
    sides[stacked] = found;
    order[2 * stacked] = low;
    order[2 * stacked + 1] = high;
    stacked++;
    // The hash leaves its two other slots (sides found + 1 and found + 2, mod 3): two calls rather than a loop over
    // [1, 2], an array iteration per peeled key (fromHashes of 10^6 keys about 8% faster, per-round ratios
    // 0.90–1.24 on a loaded machine).
    queued = unpeel(slots[found + 1]!, mod3(found + 1), low, high, counts, xors, alone, queued);
    queued = unpeel(slots[found + 2]!, mod3(found + 2), low, high, counts, xors, alone, queued);
  }
  return stacked;
}

/** Takes the peeled hash (low, high) out of slot `other`, its side `side`; queues the slot if one hash is left. */
function unpeel(
  other: number,
  side: number,
  low: number,
  high: number,
  counts: Uint8Array,
  xors: Uint32Array,
  alone: Uint32Array,
  queued: number,
): number {
  alone[queued] = other;
  const next = counts[other]! >>> 2 === 2 ? queued + 1 : queued;
  counts[other]! -= 4;
  counts[other]! ^= side;
  xors[2 * other]! ^= low;
  xors[2 * other + 1]! ^= high;
  return next;
}

function mod3(x: number): number {
  return x > 2 ? x - 3 : x;
}

/** Sorts the first `size` keys in increasing order and removes repeats; returns how many are left. */
function sortAndRemoveDuplicates(keys: Uint32Array, size: number): number {
  const wide = new BigUint64Array(keys.buffer, keys.byteOffset, size);
  wide.sort();
  let kept = size === 0 ? 0 : 1;
  for (let i = 1; i < size; i++) {
    if (wide[i] !== wide[i - 1]) wide[kept++] = wide[i]!;
  }
  return kept;
}

/** Sets the fingerprints in reverse peeling order, so that each peeled key's three slots XOR to its fingerprint. */
function assign(
  layout: FuseLayout,
  order: Uint32Array,
  sides: Uint8Array,
  size: number,
  fingerprints: Uint8Array | Uint16Array,
  slots: Uint32Array,
): void {
  const mask = fingerprints instanceof Uint8Array ? 0xff : 0xffff;
  for (let i = size - 1; i >= 0; i--) {
    const low = order[2 * i]! | 0;
    const high = order[2 * i + 1]! | 0;
    const fingerprint = (low ^ high) & mask;
    const found = sides[i]!;
    slotsOf(layout, high, low, slots);
    slots[3] = slots[0]!;
    slots[4] = slots[1]!;
    fingerprints[slots[found]!] =
      fingerprint ^ fingerprints[slots[found + 1]!]! ^ fingerprints[slots[found + 2]!]!;
  }
}
