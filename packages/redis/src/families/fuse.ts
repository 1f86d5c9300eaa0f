import { InvalidArgumentError } from '@bloomkit/core';
import { type BinaryFuseFilter, fuseLayout } from '@bloomkit/fuse';
import { FuseStore } from '../fuse-store.js';
import type { FuseTable } from '../params.js';
import { checkStringBits, oneFilter, type StorageFamily } from './family.js';

/** The meta hash's `fuse`: f:seed, f 8 or 16, the 64-bit seed in 16 lowercase hex digits. */
const FUSE = /^(8|16):([0-9a-f]{16})$/;

/** The largest `size` (keys a set was built from) a meta hash may give: the format's u32. */
const MAX_SIZE = 2 ** 32 - 1;

/**
 * `fuse`: a binary fuse filter's fingerprints (docs/FORMAT.md §3.8's payload, u8 or u16 little-endian) in one
 * string, the guard after them. A fixed set: it is imported whole (`RedisBloomFilter.import`, `bloomkit push`) and
 * only read (lua/fuse.lua, both doors). The meta hash's `capacity` is the keys it was built from (the reference's
 * `Size`, repeats included), from which both doors derive its segments; `fuse` holds the fingerprint bits and the
 * mixing seed; `count` its distinct keys; `hashes` 3 (a key's slots); `fpr` 2^-f.
 */
export const FUSE_FAMILY: StorageFamily = {
  name: 'fuse',
  exceptions: false,
  guarded: true,
  timed: false,
  alwaysSized: true,
  tooBig: 'build it with 8-bit fingerprints or from fewer keys',
  lua: 'fuse',
  plan({ where }) {
    throw new InvalidArgumentError(
      `${where}: a fuse filter holds a fixed set and is built from its keys, not created empty: build it (BinaryFuseFilter.build, or bloomkit build FILE --kind fuse8) and import it (RedisBloomFilter.import, bloomkit push)`,
    );
  },
  paramsOf(where, local, base) {
    const filter = local as unknown as BinaryFuseFilter;
    if (filter.callerHashes) {
      throw new InvalidArgumentError(
        `${where}: this fuse filter was built from the caller's 64-bit hashes (fromHashes), which no item hashes to in Redis; build it from the keys (BinaryFuseFilter.build or fromKeyHashes)`,
      );
    }
    const reference = filter.reference();
    if (reference.size === 0) {
      throw new InvalidArgumentError(`${where}: this fuse filter holds no key; there is nothing to import`);
    }
    const fuse: FuseTable = { fingerprintBits: filter.fingerprintBits, seed: reference.seed };
    checkStringBits(where, 'fuse', FUSE_FAMILY, filter.bits);
    return { ...base, bits: filter.bits, hashes: 3, capacity: reference.size, fpr: filter.fpr, fuse };
  },
  decode(meta, base) {
    const parts = FUSE.exec(meta.text('fuse') ?? '');
    if (parts === null)
      throw meta.bad('fuse', 'f:seed with f 8 or 16 and the seed in 16 lowercase hex digits');
    const f = Number(parts[1]) as 8 | 16;
    const size = base.capacity!;
    if (size > MAX_SIZE)
      throw meta.bad('capacity', `an integer in [1, ${MAX_SIZE}] (the keys of a fuse filter)`);
    const layout = fuseLayout(size);
    const bits = meta.int('bits', layout.arrayLength * f, layout.arrayLength * f);
    if (bits + 32 > 2 ** 32) throw meta.bad('capacity', 'a set whose fingerprints fit one Redis string');
    if (base.hashes !== 3) throw meta.bad('hashes', '3 (the slots of a key)');
    if (base.fpr !== 2 ** -f) throw meta.bad('fpr', `${2 ** -f} (2^-${f})`);
    const fixed = { counterBits: meta.zero('counterBits'), ...meta.oneString(), ...meta.noGrowth() };
    const fuse: FuseTable = { fingerprintBits: f, seed: BigInt(`0x${parts[2]}`) };
    return { ...base, bits, ...fixed, fuse };
  },
  open: (context) => new FuseStore(context),
  filters: oneFilter,
};
