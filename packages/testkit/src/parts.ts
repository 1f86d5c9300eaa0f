// Byte-splitting helpers for tests of the parts API (serializeParts, deserialize of a list of parts).

/** The bytes cut at the given fractions of their length: parts whose concatenation is `bytes` (some may be empty). */
export function splitAt(bytes: Uint8Array, fractions: readonly number[]): Uint8Array[] {
  const cuts = fractions.map((f) => Math.floor(f * bytes.length)).sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    parts.push(bytes.subarray(start, cut));
    start = cut;
  }
  return parts;
}

/** The parts joined into one array. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Where two byte arrays first differ, with both bytes there; undefined when they are equal. For arrays of many
 * kilobytes: `toEqual` walks them element by element through the matcher's deep equality, seconds per megabyte.
 */
export function firstDifference(actual: Uint8Array, expected: Uint8Array): string | undefined {
  if (actual.length !== expected.length) return `lengths ${actual.length} vs ${expected.length}`;
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i]) return `byte ${i}: ${actual[i]} vs ${expected[i]}`;
  }
  return undefined;
}
