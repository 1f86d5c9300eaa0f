import { InvalidArgumentError } from '@bloomkit/core';
import { checkInteger, checkOpenInterval } from '@bloomkit/core/kit';
import {
  checkGrowthFactor,
  DEFAULT_GROWTH,
  DEFAULT_TIGHTENING,
  MAX_GROWTH,
  MIN_GROWTH,
  type ScalableBloomFilter,
  subFilterShape,
} from '@bloomkit/scalable';
import { chainShapes, decodeChainShapes } from '../chain-shapes.js';
import { ScalableStore } from '../scalable-store.js';
import { checkStringBits, type StorageFamily } from './family.js';

/**
 * `chain`: the scalable filter's chain, one string per sub-filter in the filter's slot, the shape of every sub-filter
 * it may hold in the meta hash's `shapes` (chain-shapes.ts; lua/chain.lua: the test-and-add and its growth).
 */
export const CHAIN: StorageFamily = {
  name: 'chain',
  exceptions: false,
  guarded: false,
  timed: false,
  alwaysSized: true,
  tooBig: "use kind 'blocked', which shards over many keys",
  lua: 'chain',
  plan({ where, o, record, base }) {
    if (o.bits !== undefined || o.hashes !== undefined) {
      throw new InvalidArgumentError(
        `${where}: a ${record.name} filter is sized by capacity and fpr, not bits and hashes`,
      );
    }
    const growth = checkGrowthFactor(where, o.growth ?? DEFAULT_GROWTH);
    const tightening = checkOpenInterval(where, 'tightening', o.tightening ?? DEFAULT_TIGHTENING, 0, 1);
    const capacity = checkInteger(where, 'capacity', o.capacity, 1, Number.MAX_SAFE_INTEGER);
    const fpr = checkOpenInterval(where, 'fpr', o.fpr, 0, 1);
    const schedule = { initialCapacity: capacity, fpr, growth, tightening };
    const first = subFilterShape(schedule, 0);
    checkStringBits(where, record.name, CHAIN, first.bits);
    const shapes = chainShapes(schedule);
    return { ...base, bits: first.bits, hashes: first.hashes, capacity, fpr, growth, tightening, shapes };
  },
  paramsOf(where, local, base) {
    const chain = local as unknown as ScalableBloomFilter;
    const subs = chain.subFilters();
    for (const sub of subs) checkStringBits(where, base.kind, CHAIN, sub.bits);
    return {
      ...base,
      bits: subs[0]!.bits,
      hashes: subs[0]!.hashes,
      capacity: chain.initialCapacity,
      fpr: chain.fpr,
      growth: chain.growth,
      tightening: chain.tightening,
      shapes: chainShapes(chain, subs),
    };
  },
  decode(meta, base) {
    const growth = Number(meta.text('growth'));
    if (!(growth >= MIN_GROWTH && growth <= MAX_GROWTH)) {
      throw meta.bad('growth', `a number in [${MIN_GROWTH}, ${MAX_GROWTH}]`);
    }
    const tightening = meta.rate('tightening');
    const schedule = { initialCapacity: base.capacity!, fpr: base.fpr!, growth, tightening };
    // Absent in a hash written before `shapes` existed: the schedule's own sizing, as the filter was grown then.
    const text = meta.text('shapes');
    const shapes =
      text === undefined ? chainShapes(schedule) : decodeChainShapes(meta.where, meta.name, text, schedule);
    const first = shapes[0];
    if (first === undefined)
      throw meta.bad('capacity', 'small enough for sub-filter 0 to fit one Redis string');
    const bits = meta.int('bits', first.bits, first.bits);
    if (base.hashes !== first.hashes)
      throw meta.bad('hashes', `${first.hashes}, the k of sub-filter 0 in shapes`);
    return {
      ...base,
      bits,
      counterBits: meta.zero('counterBits'),
      ...meta.oneString(),
      growth,
      tightening,
      shapes,
    };
  },
  open: (context) => new ScalableStore(context),
  filters: (dataKeys) => dataKeys.length,
};
