import {
  blockedLayout,
  falsePositiveRate,
  type Layout,
  partitionedLayout,
  solveShape,
  standardLayout,
} from '@bloomkit/core';
import { cuckooShape } from '@bloomkit/cuckoo';
import { fingerprintBitsFor, fuseLayout, MAX_FUSE_KEYS } from '@bloomkit/fuse';
import { CliError, EXIT } from '../errors.js';
import { binarySize, grouped } from '../units.js';

/** What the user knows; `calc` fills in the rest. */
export interface CalcInput {
  readonly n?: number | undefined;
  readonly p?: number | undefined;
  readonly m?: number | undefined;
  readonly k?: number | undefined;
}

/** One layout's answer. `n` and `m` are null when only their ratio is determined (p and k given). */
export interface CalcRow {
  readonly layout: string;
  readonly n: number | null;
  readonly p: number;
  readonly m: number | null;
  readonly k: number;
  readonly bitsPerKey: number;
}

/** The layouts whose rates differ (counting has the standard rate; scalable is a chain of partitioned ones). */
const LAYOUTS: readonly Layout[] = [standardLayout, partitionedLayout, blockedLayout];

/**
 * Solves for the unknowns of (n, p, m, k) in every layout, with core's `solveShape` (the layout's exact rate); with
 * n and p, also the cuckoo filter `create --kind cuckoo` makes (buckets of 4: m its table's bits, k its 2 buckets,
 * p its rate at capacity) and the binary fuse filter `build` makes of a fixed set of n keys (m its fingerprints'
 * bits, k its 3 slots, p its rate 2^-8 or 2^-16, the narrowest at or below the p asked).
 */
export function solve(input: CalcInput): CalcRow[] {
  const known = (['n', 'p', 'm', 'k'] as const).filter((name) => input[name] !== undefined);
  if (known.length < 2) {
    throw new CliError(
      'calc: give at least two of --capacity (n), --fpr (p), --bits (m), --hashes (k), or --table',
    );
  }
  if (input.n !== undefined && input.m !== undefined && input.p !== undefined) {
    throw new CliError(
      'calc: --capacity, --bits and --fpr together over-determine the filter (the rate of n keys in m bits is fixed by k); give two of them, with or without --hashes',
    );
  }
  const rows: CalcRow[] = LAYOUTS.map((layout) => {
    const shape = solveShape({ capacity: input.n, fpr: input.p, bits: input.m, hashes: input.k }, layout);
    return {
      layout: layout.name,
      n: shape.capacity,
      p: shape.fpr,
      m: shape.bits,
      k: shape.hashes,
      bitsPerKey: shape.bitsPerKey,
    };
  });
  if (input.n === undefined || input.p === undefined) return rows;
  const more = [cuckooRow(input.n, input.p), fuseRow(input.n, input.p)];
  return [...rows, ...more.filter((row): row is CalcRow => row !== undefined)];
}

/** The binary fuse filter of a fixed set of n keys at a rate of at most p; none below 2^-16 or past 2^27 keys. */
function fuseRow(n: number, p: number): CalcRow | undefined {
  if (n > MAX_FUSE_KEYS || p < 2 ** -16) return undefined;
  const bits = fingerprintBitsFor(p);
  const m = fuseLayout(n).arrayLength * bits;
  return { layout: `fuse${bits}`, n, p: 2 ** -bits, m, k: 3, bitsPerKey: m / n };
}

/** The cuckoo filter for n keys at rate p, as a row; none past what it holds (p below 24-bit fingerprints' rate). */
function cuckooRow(n: number, p: number): CalcRow | undefined {
  let plan: ReturnType<typeof cuckooShape>;
  try {
    plan = cuckooShape(n, p);
  } catch {
    return undefined;
  }
  const bits = plan.buckets * plan.bucketSize * plan.fingerprintBits;
  return { layout: 'cuckoo', n, p: plan.fprAtCapacity, m: bits, k: 2, bitsPerKey: plan.bitsPerKey };
}

/** `calc`: the rows as a table (or JSON). */
export function runCalc(input: CalcInput, json: boolean): number {
  const rows = solve(input);
  if (json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  const header = ['layout', 'n (keys)', 'p (false positives)', 'm (bits)', 'k', 'bits/key', 'memory'];
  const body = rows.map((r) => [
    r.layout,
    r.n === null ? '-' : grouped(r.n),
    r.p.toPrecision(4),
    r.m === null ? '-' : grouped(r.m),
    String(r.k),
    r.bitsPerKey.toFixed(2),
    r.m === null ? '-' : binarySize(Math.ceil(r.m / 8)),
  ]);
  process.stdout.write(formatTable(header, body));
  return EXIT.ok;
}

/**
 * `calc --table`: the classic table of false-positive rates (Fan, Cao, Almeida & Broder, "Summary Cache", 2000,
 * table 1 style): rows m/n, columns k, each cell (1 − e^{−k n/m})^k, the optimum k of each row marked with `*`.
 */
export function runCalcTable(json: boolean): number {
  const ratios = Array.from({ length: 31 }, (_, i) => i + 2);
  const ks = Array.from({ length: 12 }, (_, i) => i + 1);
  const n = 1_000_000;
  const cells = ratios.map((ratio) => ks.map((k) => falsePositiveRate(ratio * n, n, k)));
  if (json) {
    process.stdout.write(
      `${JSON.stringify(
        ratios.map((ratio, i) => ({ bitsPerKey: ratio, rates: cells[i] })),
        null,
        2,
      )}\n`,
    );
    return EXIT.ok;
  }
  const header = ['m/n', ...ks.map((k) => `k=${k}`)];
  const body = ratios.map((ratio, i) => {
    const row = cells[i]!;
    const best = row.indexOf(Math.min(...row));
    return [String(ratio), ...row.map((rate, j) => `${rate.toExponential(2)}${j === best ? '*' : ' '}`)];
  });
  process.stdout.write(formatTable(header, body));
  return EXIT.ok;
}

function formatTable(header: readonly string[], body: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    `${cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd()}\n`;
  return line(header) + body.map(line).join('');
}
