import { FormatError, InvalidArgumentError } from '@bloomkit/core';
import { checkInteger, checkOpenInterval } from '@bloomkit/core/kit';
import { WindowBloomFilter } from '@bloomkit/window';
import { metaKey } from '../keys.js';
import { WindowStore } from '../window-store.js';
import { checkStringBits, oneFilter, type StorageFamily } from './family.js';

/**
 * `ring`: a window's ring of k + l slices in one string, its generations' state in the meta hash (window-store.ts;
 * lua/ring.lua: the window's step).
 */
export const RING: StorageFamily = {
  name: 'ring',
  exceptions: false,
  guarded: false,
  timed: true,
  alwaysSized: false,
  tooBig: "use kind 'blocked', which shards over many keys",
  lua: 'ring',
  plan({ where, o, record, base }) {
    if (o.bits !== undefined || o.hashes !== undefined) {
      throw new InvalidArgumentError(
        `${where}: a ${record.name} filter is sized by capacity (the window) and fpr, not bits and hashes`,
      );
    }
    if (o.counterBits !== undefined || o.shards !== undefined) {
      throw new InvalidArgumentError(
        `${where}: counterBits and shards do not apply to a ${record.name} filter`,
      );
    }
    const capacity = checkInteger(where, 'capacity', o.capacity, 1, Number.MAX_SAFE_INTEGER);
    const fpr = checkOpenInterval(where, 'fpr', o.fpr, 0, 1);
    const duration =
      o.duration === undefined ? 0 : checkInteger(where, 'duration', o.duration, 1, Number.MAX_SAFE_INTEGER);
    const shape = WindowBloomFilter.shapeOf(capacity, fpr, {
      duration: duration === 0 ? undefined : duration,
    });
    const bits = (shape.hashes + shape.ageSlices) * shape.sliceBits;
    checkStringBits(where, record.name, RING, bits);
    return { ...base, bits, hashes: shape.hashes, capacity, fpr, duration };
  },
  paramsOf(_where, local, base) {
    const window = local as unknown as WindowBloomFilter;
    return {
      ...base,
      bits: window.bits,
      hashes: window.hashes,
      capacity: window.window,
      fpr: window.fpr,
      duration: window.duration ?? 0,
    };
  },
  decode(meta, base) {
    const fixed = meta.noGrowth();
    if (base.capacity === null) throw meta.bad('capacity', 'the window, an integer in [1, 2^53 - 1]');
    let shape: ReturnType<typeof WindowBloomFilter.shapeOf>;
    try {
      const duration = base.duration === 0 ? undefined : base.duration;
      shape = WindowBloomFilter.shapeOf(base.capacity, base.fpr!, { duration });
    } catch (error) {
      throw new FormatError(
        `${meta.where}: meta of ${metaKey(meta.name)} holds an impossible window: ${(error as Error).message}`,
      );
    }
    const ringBits = (shape.hashes + shape.ageSlices) * shape.sliceBits;
    const bits = meta.int('bits', ringBits, ringBits);
    if (base.hashes !== shape.hashes)
      throw meta.bad('hashes', `${shape.hashes}, what the window's sizing gives`);
    if (base.exceptions) throw meta.bad('exceptions', '0 for a window filter (exceptions live beside bits)');
    // The shape as written for the functions (window-store.ts), which read it rather than size the window: the
    // values this sizing gives, so that both doors refuse the same hash.
    meta.int('ageSlices', shape.ageSlices, shape.ageSlices);
    meta.int('sliceBits', shape.sliceBits, shape.sliceBits);
    meta.int('generationKeys', shape.generation, shape.generation);
    if (meta.text('period') !== String(shape.period)) throw meta.bad('period', String(shape.period));
    return { ...base, bits, counterBits: meta.zero('counterBits'), ...meta.oneString(), ...fixed };
  },
  open: (context, _counter, clock) => new WindowStore(context, clock),
  filters: oneFilter,
};
