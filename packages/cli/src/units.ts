/** A byte count as people read it: `512 B`, `1.2 MiB`, `4.0 GiB`. */
export function binarySize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * Parses a count as an operator types it: `1000000`, `1e6`, `10_000_000`, `2^33`. Returns NaN for anything else,
 * so the caller's range check names the option.
 */
export function parseNumber(text: string): number {
  const trimmed = text.trim().replaceAll('_', '');
  const power = /^(\d+)\^(\d+)$/.exec(trimmed);
  if (power !== null) return Number(power[1]) ** Number(power[2]);
  if (trimmed === '' || !/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(trimmed)) return Number.NaN;
  return Number(trimmed);
}

/**
 * An integer with thousands separators, `10,000,000`. Not `toLocaleString`: its first call loads ICU's locale
 * data, 7 MB of memory that a stream filter does not need.
 */
export function grouped(value: number): string {
  const [whole, fraction] = String(value).split('.');
  const digits = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? digits : `${digits}.${fraction}`;
}

/** Milliseconds per unit of a duration as an operator types it. */
const DURATION_UNITS: readonly [string, number][] = [
  ['w', 7 * 86_400_000],
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
  ['ms', 1],
];

/**
 * A duration as an operator types it, in milliseconds: a number and a unit, `500ms`, `90s`, `15m`, `24h`, `7d`,
 * `2w` (or `1.5h`). Returns NaN for anything else (a bare number among them), so the caller names the option.
 */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(text.trim());
  if (match === null) return Number.NaN;
  const unit = DURATION_UNITS.find(([name]) => name === match[2])![1];
  return Math.round(Number(match[1]) * unit);
}

/** Milliseconds as people read them, in the largest unit that fits: `24h`, `2.88h`, `90s`, `250ms`. */
export function formatDuration(ms: number): string {
  for (const [name, unit] of DURATION_UNITS) {
    if (ms >= unit || unit === 1) return `${Number((ms / unit).toFixed(2))}${name}`;
  }
  return `${ms}ms`;
}
