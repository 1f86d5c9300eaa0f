/**
 * The distinct 64-bit keys of `words` ((low, high) u32 pairs, as the build takes them), each at its first
 * occurrence, in input order: what `build` and `fromKeyHashes` make a filter of, so that repeats cost nothing (10^6
 * keys with 500,000 repeats took 13.5 bits a distinct key, sized for every copy, where the set needs 9.0).
 *
 * An open-addressing table of indexes (linear probing, at most half full), its slot from the low word mixed with the
 * high one: about 20 ns a key, no BigInt and no allocation per key. Called only when a build found repeats.
 */
export function firstOccurrences(words: Uint32Array): Uint32Array {
  const n = words.length / 2;
  let bits = 1;
  while (2 ** bits < 2 * n) bits++;
  const mask = 2 ** bits - 1;
  const table = new Int32Array(2 ** bits).fill(-1);
  const out = new Uint32Array(words.length);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const low = words[2 * i]!;
    const high = words[2 * i + 1]!;
    let slot = (Math.imul(low ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b) >>> (32 - bits)) & mask;
    for (;;) {
      const at = table[slot]!;
      if (at < 0) {
        table[slot] = kept;
        out[2 * kept] = low;
        out[2 * kept + 1] = high;
        kept++;
        break;
      }
      if (out[2 * at] === low && out[2 * at + 1] === high) break;
      slot = (slot + 1) & mask;
    }
  }
  return out.subarray(0, 2 * kept);
}
