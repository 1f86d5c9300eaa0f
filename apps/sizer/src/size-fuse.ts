import { fuseLayout } from '@bloomkit/fuse';
import { bytes, grouped, rate } from './numbers.js';
import { row } from './rows.js';
import type { Sized, SizeInput } from './size.js';
import { kindsPlot } from './size-compare.js';

/**
 * A binary fuse filter of a fixed set of n keys (kind 9): its slots are the reference's sizing for n, the same for 8-
 * and 16-bit fingerprints, and its rate is 2^-bits whatever n is. Both widths side by side.
 */
export function sizeFuse(input: SizeInput): Sized {
  if (input.capacity === undefined) throw new RangeError('fuse: give n, the keys of the set');
  const n = input.capacity;
  if (n > 2 ** 27) throw new RangeError(`fuse: a build takes at most 2^27 keys, got ${n}`);
  const layout = fuseLayout(n);
  const rows = [
    row('slots', 'fingerprints (segments × length)', layout.arrayLength, grouped(layout.arrayLength)),
    row(
      'segments',
      'segments of L slots',
      layout.segmentCount + 2,
      `${layout.segmentCount + 2} × ${layout.segmentLength}`,
    ),
  ];
  for (const bits of [8, 16]) {
    const size = (layout.arrayLength * bits) / 8;
    rows.push(
      row(`bytes${bits}`, `bytes, ${bits}-bit fingerprints`, size, bytes(size)),
      row(
        `bitsPerKey${bits}`,
        `bits per key, ${bits}-bit`,
        (size * 8) / Math.max(1, n),
        ((size * 8) / Math.max(1, n)).toFixed(2),
      ),
      row(`fpr${bits}`, `p, ${bits}-bit`, 2 ** -bits, rate(2 ** -bits)),
    );
  }
  return { rows, plot: kindsPlot(Math.max(1, n)) };
}
