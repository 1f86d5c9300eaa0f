import { InvalidArgumentError } from '@bloomkit/core';
import { checkInteger } from '@bloomkit/core/kit';
import { type CuckooFilter, cuckooShape } from '@bloomkit/cuckoo';
import { CuckooStore } from '../cuckoo-store.js';
import type { CuckooTable } from '../params.js';
import { checkStringBits, oneFilter, refuseOption, type StorageFamily } from './family.js';

/** The table's text in the meta hash: f:b:n:kicks. */
const TABLE = /^(\d{1,2}):(\d):(\d{1,10}):(\d{1,5})$/;

/**
 * `cuckoo`: a cuckoo filter's table (n buckets of b slots of f bits, packed as docs/FORMAT.md §3.9 and read by
 * BITFIELD's `u<f>`) in one string, the guard after it; its shape in the meta hash's `table`. Only scripts change
 * it (lua/cuckoo.lua: an add's walk reads and moves fingerprints, whole or nothing).
 */
export const CUCKOO: StorageFamily = {
  name: 'cuckoo',
  exceptions: false,
  guarded: true,
  timed: false,
  alwaysSized: true,
  tooBig: 'use a larger fpr or a smaller capacity',
  lua: 'cuckoo',
  plan(plan) {
    const { where, o } = plan;
    refuseOption(plan, 'counterBits');
    refuseOption(plan, 'shards');
    if (o.bits !== undefined || o.hashes !== undefined) {
      throw new InvalidArgumentError(
        `${where}: a cuckoo filter is sized by capacity and fpr, not bits and hashes`,
      );
    }
    const capacity = checkInteger(where, 'capacity', o.capacity, 1, Number.MAX_SAFE_INTEGER);
    const shape = cuckooShape(capacity, o.fpr as number, o.bucketSize);
    const table: CuckooTable = { ...shape, maxKicks: 1000 };
    return { ...plan.base, ...sizedTable(where, table), capacity, fpr: o.fpr as number, table };
  },
  paramsOf(where, local, base) {
    const filter = local as unknown as CuckooFilter;
    const table: CuckooTable = {
      fingerprintBits: filter.fingerprintBits,
      bucketSize: filter.bucketSize,
      buckets: filter.buckets,
      maxKicks: filter.maxKicks,
    };
    return { ...base, ...sizedTable(where, table), capacity: filter.capacity, fpr: filter.fpr, table };
  },
  decode(meta, base) {
    const parts = TABLE.exec(meta.text('table') ?? '');
    const [f, b, n, kicks] = (parts ?? []).slice(1).map(Number);
    if (
      parts === null ||
      !(f! >= 4 && f! <= 24) ||
      !(b === 2 || b === 4 || b === 8) ||
      !(n! >= 1 && n! <= 2 ** 31 - 1) ||
      !(kicks! >= 1 && kicks! <= 65535)
    ) {
      throw meta.bad(
        'table',
        'f:b:n:kicks with f in [4, 24], b one of 2, 4, 8, n in [1, 2^31 - 1], kicks in [1, 65535]',
      );
    }
    const table: CuckooTable = { fingerprintBits: f!, bucketSize: b, buckets: n!, maxKicks: kicks! };
    const bits = meta.int('bits', n! * b * f!, n! * b * f!);
    if (Math.ceil(bits / 8) * 8 + 32 > 2 ** 32) throw meta.bad('table', 'a table of at most 2^32 − 32 bits');
    if (base.hashes !== 2) throw meta.bad('hashes', '2 (the buckets of a key)');
    const fixed = { counterBits: meta.zero('counterBits'), ...meta.oneString(), ...meta.noGrowth() };
    return { ...base, bits, ...fixed, table };
  },
  open: (context) => new CuckooStore(context),
  filters: oneFilter,
};

/** The m and k a cuckoo filter's meta hash holds (n · b · f bits, 2 buckets a key), checked to fit one string. */
function sizedTable(where: string, table: CuckooTable): { bits: number; hashes: number } {
  const bits = table.buckets * table.bucketSize * table.fingerprintBits;
  checkStringBits(where, 'cuckoo', CUCKOO, Math.ceil(bits / 8) * 8);
  return { bits, hashes: 2 };
}
