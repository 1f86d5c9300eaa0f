/**
 * Deterministic key streams for statistical tests: the same seed gives the same keys on every run, so a test's
 * outcome depends only on the code under test.
 */

/** SplitMix32-style generator (Steele, Lea & Flood, "Fast Splittable Pseudorandom Number Generators", 2014). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** `count` distinct URL-like keys; different `namespace`s never collide (hosts differ). */
export function urlKeys(count: number, namespace: string, seed = 1): string[] {
  for (const chunk of urlKeyChunks(count, namespace, seed, count)) return chunk;
  return [];
}

/** The keys of {@link urlKeys}, in order, `chunk` at a time: a test of 10^7 keys need not hold them all. */
export function* urlKeyChunks(
  count: number,
  namespace: string,
  seed: number,
  chunk: number,
): Generator<string[]> {
  const next = prng(seed);
  for (let start = 0; start < count; start += chunk) {
    const keys = new Array<string>(Math.min(chunk, count - start));
    for (let j = 0; j < keys.length; j++) {
      const i = start + j;
      keys[j] =
        `https://${namespace}.example.com/${next().toString(36)}/item/${i}?ref=${next().toString(16)}`;
    }
    yield keys;
  }
}

/**
 * `count` random 16-byte keys. A key's first byte is `tag`, so streams with different tags never share a key
 * (within one tag, the remaining 120 random bits make a repeat vanishingly unlikely).
 */
export function binaryKeys(count: number, tag: number, seed = 1): Uint8Array[] {
  const next = prng(seed);
  const keys = new Array<Uint8Array>(count);
  for (let i = 0; i < count; i++) {
    const key = new Uint8Array(16);
    const view = new DataView(key.buffer);
    for (let w = 0; w < 4; w++) view.setUint32(w * 4, next());
    key[0] = tag;
    keys[i] = key;
  }
  return keys;
}
