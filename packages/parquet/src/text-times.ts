// Dates, times, timestamps and intervals written as text, as the physical values Parquet writers store
// (apache/parquet-format LogicalTypes.md): DATE INT32 days since 1970-01-01; TIME units since midnight (MILLIS in
// INT32, MICROS and NANOS in INT64); TIMESTAMP INT64 units since the epoch; INTERVAL 12 bytes, three little-endian
// u32 (months, days, milliseconds). Each function takes `bad`, which throws the caller's error naming the column.

const INTEGER = /^[+-]?\d+$/;
/** YYYY-MM-DD, then optionally [T or space]HH:MM[:SS[.fraction]], then an optional UTC offset. */
const DATE_TIME =
  /^(-?\d{4,6})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s?(Z|[+-]\d{2}(?::?\d{2})?)?$/;
/** HH:MM[:SS[.fraction]] and an optional UTC offset. */
const TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s?(Z|[+-]\d{2}(?::?\d{2})?)?$/;
const UNIT_DIGITS = { MILLIS: 3, MICROS: 6, NANOS: 9 } as const;
type Unit = keyof typeof UNIT_DIGITS;

const unitOf = (logicalType: string): Unit => logicalType.slice(logicalType.indexOf('_') + 1) as Unit;

/** A UTC offset (`Z`, `+HH`, `+HHMM`, `+HH:MM`) in seconds, or undefined when it is not one. */
function offsetSeconds(text: string | undefined): number | undefined {
  if (text === undefined || text === 'Z') return 0;
  const match = /^([+-])(\d{2}):?(\d{2})?$/.exec(text);
  if (match === null) return undefined;
  const [hours, minutes] = [Number(match[2]), Number(match[3] ?? 0)];
  if (hours > 23 || minutes > 59) return undefined;
  return (match[1] === '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
}

/** Days since 1970-01-01 of a year, month and day, or undefined when the month or day is out of range. */
function daysOf(year: number, month: number, day: number): number | undefined {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return undefined;
  }
  return Math.floor(date.getTime() / 86_400_000);
}

/** Seconds of a time of day, or undefined when out of range. */
function secondsOfDay(hours: string, minutes: string, seconds: string | undefined): number | undefined {
  const [h, m, s] = [Number(hours), Number(minutes), Number(seconds ?? 0)];
  if (h > 23 || m > 59 || s > 59) return undefined;
  return h * 3600 + m * 60 + s;
}

/** A fraction of a second in `digits`-digit units, or undefined when it has non-zero digits finer than that. */
function fractionUnits(fraction: string | undefined, digits: number): bigint | undefined {
  const padded = (fraction ?? '').padEnd(9, '0');
  if (/[^0]/.test(padded.slice(digits))) return undefined;
  return BigInt(padded.slice(0, digits) || '0');
}

/** DATE: `YYYY-MM-DD`, or days since 1970-01-01. */
export function dateFromText(text: string, bad: (what: string) => never): number {
  const match = DATE_TIME.exec(text);
  if (match !== null && match[4] === undefined && match[8] === undefined) {
    return daysOf(Number(match[1]), Number(match[2]), Number(match[3])) ?? bad('a date YYYY-MM-DD');
  }
  if (!INTEGER.test(text)) return bad('a date YYYY-MM-DD or days');
  const value = Number(text);
  return value >= -(2 ** 31) && value < 2 ** 31 ? value : bad('days in [-2^31, 2^31 - 1]');
}

/**
 * TIME_MILLIS, TIME_MICROS or TIME_NANOS: `HH:MM[:SS[.fraction]]` (a UTC-adjusted time may carry an offset, which is
 * taken off, wrapping around midnight), or units since midnight.
 */
export function timeFromText(
  logicalType: string,
  physical: string,
  utc: boolean,
  text: string,
  bad: (what: string) => never,
): number | bigint {
  const unit = unitOf(logicalType);
  const digits = UNIT_DIGITS[unit];
  const perDay = 86_400n * 10n ** BigInt(digits);
  const asPhysical = (units: bigint) => (physical === 'INT32' ? Number(units) : units);
  if (INTEGER.test(text)) {
    const units = BigInt(text);
    return units >= 0n && units <= perDay ? asPhysical(units) : bad(`units since midnight in [0, ${perDay}]`);
  }
  const match = TIME.exec(text);
  const takes = `a time HH:MM:SS[.fraction] of at most ${digits} fraction digits${utc ? ' and a UTC offset' : ''}, or units`;
  if (match === null) return bad(takes);
  const seconds = secondsOfDay(match[1]!, match[2]!, match[3]);
  const fraction = fractionUnits(match[4], digits);
  const offset = offsetSeconds(match[5]);
  if (seconds === undefined || fraction === undefined || offset === undefined) return bad(takes);
  if (offset !== 0 && !utc) return bad(`a local time without a UTC offset`);
  const units = (((BigInt(seconds - offset) * 10n ** BigInt(digits) + fraction) % perDay) + perDay) % perDay;
  return asPhysical(units);
}

/**
 * TIMESTAMP_MILLIS, _MICROS or _NANOS (INT64): `YYYY-MM-DD[ HH:MM[:SS[.fraction]]]` with an optional UTC offset,
 * which a UTC-adjusted column takes off (a local one takes none but +00:00), or units since the epoch.
 */
export function timestampFromText(
  logicalType: string,
  utc: boolean,
  text: string,
  bad: (what: string) => never,
): bigint {
  const digits = UNIT_DIGITS[unitOf(logicalType)];
  if (INTEGER.test(text)) {
    const value = BigInt(text);
    return value >= -(2n ** 63n) && value < 2n ** 63n ? value : bad('an integer in [-2^63, 2^63 - 1]');
  }
  const takes = `a time YYYY-MM-DD HH:MM:SS[.fraction] of at most ${digits} fraction digits${utc ? ' and a UTC offset' : ''}, or units`;
  const match = DATE_TIME.exec(text);
  if (match === null) return bad(takes);
  const days = daysOf(Number(match[1]), Number(match[2]), Number(match[3]));
  const seconds = match[4] === undefined ? 0 : secondsOfDay(match[4], match[5]!, match[6]);
  const fraction = fractionUnits(match[7], digits);
  const offset = offsetSeconds(match[8]);
  if (days === undefined || seconds === undefined || fraction === undefined || offset === undefined)
    return bad(takes);
  if (offset !== 0 && !utc) return bad('a local timestamp without a UTC offset');
  const value = (BigInt(days) * 86_400n + BigInt(seconds - offset)) * 10n ** BigInt(digits) + fraction;
  return value >= -(2n ** 63n) && value < 2n ** 63n
    ? value
    : bad('a time within the INT64 range of its unit');
}

const INTERVAL_PART = /^(-?\d+)\s*(years?|mons?|months?|days?)$/i;

/**
 * INTERVAL (12 bytes): parts `N year(s)`, `N month(s)` (or `mon`), `N day(s)` and a time `HH:MM:SS[.mmm]`, any of
 * them, as DuckDB prints one (`1 year 2 months 3 days 04:05:06.789`, `00:00:01`); each field an unsigned 32-bit
 * integer (months, days, milliseconds), so a negative part or a fraction finer than a millisecond is an error.
 */
export function intervalFromText(text: string, bad: (what: string) => never): Uint8Array {
  const takes = 'an interval: N years N months N days HH:MM:SS[.mmm], each part optional and not negative';
  const words = text.trim().split(/\s+/);
  let months = 0;
  let days = 0;
  let millis = 0;
  let i = 0;
  for (; i + 1 < words.length; i += 2) {
    const part = INTERVAL_PART.exec(`${words[i]} ${words[i + 1]}`);
    if (part === null) break;
    const n = Number(part[1]);
    const unit = part[2]!.toLowerCase();
    if (unit.startsWith('y')) months += 12 * n;
    else if (unit.startsWith('mon')) months += n;
    else days += n;
  }
  if (i < words.length) {
    // Hours may pass 23 here: an interval's time is a duration, not a time of day.
    const time =
      i === words.length - 1 ? /^(\d{1,6}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(words[i]!) : null;
    const fraction = fractionUnits(time?.[4], 3);
    if (time === null || fraction === undefined || Number(time[2]) > 59 || Number(time[3] ?? 0) > 59)
      return bad(takes);
    millis = ((Number(time[1]) * 60 + Number(time[2])) * 60 + Number(time[3] ?? 0)) * 1000 + Number(fraction);
  }
  if (words.length === 0 || text.trim() === '') return bad(takes);
  const u32 = (n: number) => Number.isSafeInteger(n) && n >= 0 && n < 2 ** 32;
  if (!u32(months) || !u32(days) || !u32(millis)) return bad(takes);
  const out = new Uint8Array(12);
  const view = new DataView(out.buffer);
  view.setUint32(0, months, true);
  view.setUint32(4, days, true);
  view.setUint32(8, millis, true);
  return out;
}
