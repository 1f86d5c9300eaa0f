import {
  blockedLayout,
  capacityFor,
  chooseShape,
  falsePositiveRate,
  type Layout,
  MAX_HASHES,
  partitionedLayout,
  standardLayout,
} from '@bloomkit/core';
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
 * Solves for the unknowns of (n, p, m, k) in every layout, with the layout's exact rate (core's parameter math):
 * - n, p: the smallest m and its k (what `create` picks);
 * - n, m: the k with the lowest rate, and that rate;
 * - m, p: the k that holds the most keys, and how many;
 * - n, k or m, k: the other size for which k is optimal (m/n = k / ln 2), and the rate;
 * - p, k: the bits per key that reach p with k;
 * - three or four given: whatever is missing, or the rate of the given shape.
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
  return LAYOUTS.map((layout) => solveLayout(layout, input));
}

function solveLayout(layout: Layout, { n, p, m, k }: CalcInput): CalcRow {
  const row = (rn: number | null, rp: number, rm: number | null, rk: number, perKey?: number): CalcRow => ({
    layout: layout.name,
    n: rn,
    p: rp,
    m: rm,
    k: rk,
    bitsPerKey: perKey ?? rm! / rn!,
  });
  const unitUp = (bits: number, hashes: number) =>
    Math.ceil(bits / layout.bitsUnit(hashes)) * layout.bitsUnit(hashes);
  if (n !== undefined && m !== undefined && k !== undefined) {
    const bits = unitUp(m, k);
    return row(n, layout.falsePositiveRate(bits, n, k), bits, k);
  }
  if (n !== undefined && p !== undefined && k !== undefined) {
    const bits = smallestBits(layout, n, p, k);
    return row(n, layout.falsePositiveRate(bits, n, k), bits, k);
  }
  if (m !== undefined && p !== undefined && k !== undefined) {
    const bits = unitUp(m, k);
    return row(capacityFor(bits, k, p, layout), p, bits, k);
  }
  if (n !== undefined && m !== undefined) return bestK(layout, n, m, row);
  if (n !== undefined && p !== undefined) {
    const shape = chooseShape(n, p, layout, 'calc');
    return row(n, shape.predictedFpr, shape.bits, shape.hashes);
  }
  if (m !== undefined && p !== undefined) {
    let best = row(0, p, m, 1);
    for (let hashes = 1; hashes <= MAX_HASHES; hashes++) {
      const bits = unitUp(m, hashes);
      const keys = capacityFor(bits, hashes, p, layout);
      if (keys > best.n!) best = row(keys, p, bits, hashes);
    }
    return best;
  }
  if (k !== undefined && (n !== undefined || m !== undefined)) {
    const keys = n ?? Math.max(1, Math.floor((m! * Math.LN2) / k));
    const bits = unitUp(m ?? Math.ceil((k * keys) / Math.LN2), k);
    return row(keys, layout.falsePositiveRate(bits, keys, k), bits, k);
  }
  // p and k: the bits per key, from a nominal 10^6 keys (the rate depends on m/n only, for large n).
  const nominal = 1_000_000;
  const bits = smallestBits(layout, nominal, p!, k!);
  return row(null, layout.falsePositiveRate(bits, nominal, k!), null, k!, bits / nominal);
}

/** The k with the lowest rate for n keys in m bits. */
function bestK(
  layout: Layout,
  n: number,
  m: number,
  row: (n: number, p: number, m: number, k: number) => CalcRow,
): CalcRow {
  let best: CalcRow | undefined;
  for (let hashes = 1; hashes <= MAX_HASHES; hashes++) {
    const unit = layout.bitsUnit(hashes);
    const bits = Math.ceil(m / unit) * unit;
    const rate = layout.falsePositiveRate(bits, n, hashes);
    if (best === undefined || rate < best.p) best = row(n, rate, bits, hashes);
  }
  return best!;
}

/** The smallest m (in the layout's unit) whose rate with n keys and k hashes is at most p. */
function smallestBits(layout: Layout, n: number, p: number, k: number): number {
  const unit = layout.bitsUnit(k);
  const fits = (units: number) => layout.falsePositiveRate(units * unit, n, k) <= p;
  let hi = 1;
  while (!fits(hi)) {
    if (hi * unit > layout.maxBits)
      throw new CliError(`calc: ${n} keys at ${p} with k = ${k} need more than ${layout.maxBits} bits`);
    hi *= 2;
  }
  let lo = Math.floor(hi / 2);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi * unit;
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
