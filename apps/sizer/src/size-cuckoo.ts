import { cuckooShape } from '@bloomkit/cuckoo';
import { bytes, grouped, rate } from './numbers.js';
import { row } from './rows.js';
import type { Sized, SizeInput } from './size.js';
import { kindsPlot } from './size-compare.js';

/**
 * A cuckoo filter of n keys at rate p (kind 10), for each bucket size, beside the 4-bit counting filter a user who
 * deletes would otherwise pick (m = ⌈−n ln p / (ln 2)²⌉ counters of 4 bits at the best k).
 */
export function sizeCuckoo(input: SizeInput): Sized {
  if (input.capacity === undefined || input.fpr === undefined) throw new RangeError('cuckoo: give n and p');
  const { capacity, fpr } = input;
  const rows = [];
  for (const bucketSize of [4, 2, 8] as const) {
    const plan = cuckooShape(capacity, fpr, bucketSize);
    const tag = bucketSize === 4 ? '' : `${bucketSize}`;
    const of = bucketSize === 4 ? '' : `, buckets of ${bucketSize}`;
    rows.push(
      row(`fingerprintBits${tag}`, `fingerprint bits${of}`, plan.fingerprintBits),
      row(`buckets${tag}`, `buckets of ${bucketSize} slots`, plan.buckets, grouped(plan.buckets)),
      row(`bytes${tag}`, `bytes${of}`, plan.bytes, bytes(plan.bytes)),
      row(`bitsPerKey${tag}`, `bits per key${of}`, plan.bitsPerKey, plan.bitsPerKey.toFixed(2)),
      row(`fpr${tag}`, `p at n keys${of}`, plan.fprAtCapacity, rate(plan.fprAtCapacity)),
    );
  }
  const counters = Math.ceil((-capacity * Math.log(fpr)) / Math.LN2 ** 2);
  rows.push(
    row(
      'countingBitsPerKey',
      'bits per key, 4-bit counting filter',
      (4 * counters) / capacity,
      ((4 * counters) / capacity).toFixed(2),
    ),
  );
  return { rows, plot: kindsPlot(capacity) };
}
