import { BitStore } from '../bit-store.js';
import { MAX_STRING_BITS } from '../bytes.js';
import { GUARD_BYTES } from '../guard.js';
import {
  checkStringBits,
  oneFilter,
  refuseOption,
  type StorageFamily,
  sizedOf,
  sizeSingle,
} from './family.js';

/**
 * `bits`: a bit filter in one string (standard, partitioned, or any single bit kind whose layout is not blocked),
 * the guard after its bits, an exception set beside them when asked (lua/bits.lua, lua/exceptions.lua).
 */
export const BITS: StorageFamily = {
  name: 'bits',
  exceptions: true,
  guarded: true,
  timed: false,
  alwaysSized: false,
  tooBig: "use kind 'blocked', which shards over many keys",
  lua: 'bits',
  plan(plan) {
    refuseOption(plan, 'counterBits');
    const sized = sizeSingle(plan);
    refuseOption(plan, 'shards');
    checkStringBits(plan.where, plan.record.name, BITS, sized.bits);
    return { ...plan.base, ...sized };
  },
  paramsOf(where, local, base) {
    checkStringBits(where, base.kind, BITS, local.bits);
    return { ...base, ...sizedOf(local) };
  },
  decode(meta, base, record) {
    const fixed = meta.noGrowth();
    // The guard's 32 bits follow the bits in the same string (guard.ts): Redis's largest bit offset is 2^32 - 1.
    const bits = meta.int('bits', 1, MAX_STRING_BITS - 8 * GUARD_BYTES);
    const unit = record.layout.bitsUnit(base.hashes);
    if (bits % unit !== 0) {
      throw meta.bad('bits', `a multiple of ${unit} (the layout's unit with k = ${base.hashes})`);
    }
    return { ...base, bits, counterBits: meta.zero('counterBits'), ...meta.oneString(), ...fixed };
  },
  open: (context, counter) => new BitStore(context, counter, false),
  filters: oneFilter,
};
