import { InvalidArgumentError } from '@bloomkit/core';
import { checkOneOf } from '@bloomkit/core/kit';
import { MAX_STRING_BITS } from '../bytes.js';
import { CounterStore } from '../counter-store.js';
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
 * `counters`: a single kind with counters (counting), 4- or 8-bit counters in one string, the guard after them
 * (lua/counters.lua: the checked delete).
 */
export const COUNTERS: StorageFamily = {
  name: 'counters',
  exceptions: false,
  guarded: true,
  timed: false,
  alwaysSized: false,
  tooBig: "use kind 'blocked', which shards over many keys",
  lua: 'counters',
  plan(plan) {
    const counterBits = checkOneOf(plan.where, 'counterBits', plan.o.counterBits ?? 4, [4, 8] as const);
    const sized = sizeSingle(plan);
    refuseOption(plan, 'shards');
    checkStringBits(plan.where, plan.record.name, COUNTERS, sized.bits * counterBits);
    return { ...plan.base, ...sized, counterBits };
  },
  paramsOf(where, local, base) {
    const counterBits = (local as { counterBits?: number }).counterBits ?? 0;
    if (counterBits !== 4 && counterBits !== 8) {
      throw new InvalidArgumentError(
        `${where}: ${counterBits}-bit counters are not supported in Redis (its BITFIELD integers are big-endian); use 4 or 8`,
      );
    }
    checkStringBits(where, base.kind, COUNTERS, local.bits * counterBits);
    return { ...base, ...sizedOf(local), counterBits };
  },
  decode(meta, base) {
    const fixed = meta.noGrowth();
    const counterBits = meta.int('counterBits', 4, 8);
    if (counterBits !== 4 && counterBits !== 8) throw meta.bad('counterBits', 'one of 4, 8');
    // The guard's 32 bits follow the counters in the same string (guard.ts).
    const bits = meta.int('bits', 1, Math.floor((MAX_STRING_BITS - 8 * GUARD_BYTES) / counterBits));
    return { ...base, bits, counterBits, ...meta.oneString(), ...fixed };
  },
  open: (context, counter) => new CounterStore(context, counter),
  filters: oneFilter,
};
