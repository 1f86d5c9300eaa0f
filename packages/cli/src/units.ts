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
