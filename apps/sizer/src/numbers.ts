/**
 * Reading what a user types into a field, and writing numbers back. A field left blank is unknown (undefined); text
 * that is not a number is a {@link FieldError} naming the field, shown beside the results.
 */

import { fieldName } from './words.js';

/** A field's text that is not a value of its kind. */
export class FieldError extends Error {
  override readonly name = 'FieldError';
}

const SUFFIX: Record<string, number> = { '': 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12 };

/**
 * A count: `1000000`, `1e6`, `1_000_000`, `1,000,000`, `10k`, `1.5M`, `2G` (decimal suffixes), a whole number from
 * 1 to 2^53 − 1; anything else is refused in the command line's words (`1.5` is not taken as 2).
 */
export function readCount(field: string, text: string): number | undefined {
  const clean = text.trim().replace(/[_,\s]/g, '');
  if (clean === '') return undefined;
  const match = /^(\d+(?:\.\d+)?(?:e\d+)?)([kmgt]?)$/i.exec(clean);
  const value = match === null ? Number.NaN : Number(match[1]) * SUFFIX[match[2]!.toLowerCase()]!;
  if (!Number.isFinite(value))
    throw new FieldError(`${field}: "${text.trim()}" is not a count (e.g. 1e6, 10k)`);
  // A suffix's product is exact to a few ulps (1.1k is 1100.0000000000002): whole within one part in 10^12.
  const whole = Math.round(value);
  if (Math.abs(value - whole) > value * 1e-12 || whole < 1 || whole > Number.MAX_SAFE_INTEGER) {
    throw new FieldError(`${fieldName(field)} must be an integer in [1, 2^53 - 1], got '${text.trim()}'`);
  }
  return whole;
}

/** A rate: `0.01`, `1e-3`, `1%`. */
export function readRate(field: string, text: string): number | undefined {
  const clean = text.trim();
  if (clean === '') return undefined;
  const percent = clean.endsWith('%');
  const value = Number(percent ? clean.slice(0, -1) : clean);
  if (clean === '%' || !Number.isFinite(value)) {
    throw new FieldError(`${field}: "${clean}" is not a rate (e.g. 0.01, 1%)`);
  }
  return percent ? value / 100 : value;
}

/** A plain number (a growth factor, a tightening ratio). */
export function readNumber(field: string, text: string): number | undefined {
  const clean = text.trim();
  if (clean === '') return undefined;
  const value = Number(clean);
  if (!Number.isFinite(value)) throw new FieldError(`${field}: "${clean}" is not a number`);
  return value;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1e3, m: 6e4, min: 6e4, h: 3.6e6, d: 8.64e7, w: 6.048e8 };

/** A duration: `24h`, `90m`, `30s`, `7d`, `500ms`, or a number of milliseconds. */
export function readDuration(field: string, text: string): number | undefined {
  const clean = text.trim().toLowerCase().replace(/\s/g, '');
  if (clean === '') return undefined;
  const match = /^(\d+(?:\.\d+)?)(ms|s|min|m|h|d|w)?$/.exec(clean);
  const ms = match === null ? 0 : Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!);
  if (ms < 1) {
    throw new FieldError(
      `${fieldName(field)} must be a time such as 500ms, 90s, 15m, 24h or 7d (at least 1 ms), got '${text.trim()}'`,
    );
  }
  return ms;
}

const grouping = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 1234567 → "1,234,567". */
export function grouped(value: number): string {
  return Number.isFinite(value) ? grouping.format(value) : String(value);
}

/** A rate to three significant digits: "0.00998", "1.23e-7". */
export function rate(value: number): string {
  if (value === 0) return '0';
  return value >= 1e-4 ? value.toPrecision(3) : value.toExponential(2);
}

/** Bytes in binary units: "1.17 MiB". */
export function bytes(value: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = value;
  let unit = 0;
  while (v >= 1024 && unit < units.length - 1) {
    v /= 1024;
    unit++;
  }
  return unit === 0 ? `${v} B` : `${v.toFixed(2)} ${units[unit]}`;
}

/** Milliseconds in the largest unit that keeps them at least 1: "24 h", "1.5 d", "250 ms". */
export function duration(ms: number): string {
  for (const [unit, size] of [
    ['d', 8.64e7],
    ['h', 3.6e6],
    ['min', 6e4],
    ['s', 1e3],
  ] as const) {
    if (ms >= size) return `${Number((ms / size).toPrecision(3))} ${unit}`;
  }
  return `${ms} ms`;
}

/** 1500 → "1.5k", 2e6 → "2M". */
export function compact(value: number): string {
  for (const [suffix, size] of [
    ['T', 1e12],
    ['G', 1e9],
    ['M', 1e6],
    ['k', 1e3],
  ] as const) {
    if (Math.abs(value) >= size) return `${Number((value / size).toPrecision(3))}${suffix}`;
  }
  return String(Number(value.toPrecision(3)));
}
