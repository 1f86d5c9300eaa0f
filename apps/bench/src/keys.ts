/**
 * The benchmark's keys, generated in the child process before any timing: deterministic (same seed, same keys
 * in every process), so all contenders see exactly the same keys.
 */
export type KeyType = 'url' | 'binary';

function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** URL-like keys of a crawler's frontier (about 60 characters); `space` separates present from absent keys. */
export function urlKeys(count: number, space: 'present' | 'absent', seed = 7): string[] {
  const next = splitmix32(seed + (space === 'present' ? 0 : 1_000_003));
  const host = space === 'present' ? 'crawl' : 'unseen';
  const out = new Array<string>(count);
  for (let i = 0; i < count; i++) {
    out[i] = `https://www.${host}-${next() % 5000}.example.com/articles/${next().toString(36)}?page=${i}`;
  }
  return out;
}

/** Random 16-byte keys, as a storage engine's; the first byte separates present from absent keys. */
export function binaryKeys(count: number, space: 'present' | 'absent', seed = 7): Uint8Array[] {
  const next = splitmix32(seed + (space === 'present' ? 0 : 1_000_003));
  const out = new Array<Uint8Array>(count);
  for (let i = 0; i < count; i++) {
    const key = new Uint8Array(16);
    for (let w = 0; w < 16; w += 4) {
      const r = next();
      key[w] = r;
      key[w + 1] = r >>> 8;
      key[w + 2] = r >>> 16;
      key[w + 3] = r >>> 24;
    }
    key[0] = space === 'present' ? 0x00 : 0xff;
    out[i] = key;
  }
  return out;
}

export function makeKeys(type: KeyType, count: number, space: 'present' | 'absent'): (string | Uint8Array)[] {
  return type === 'url' ? urlKeys(count, space) : binaryKeys(count, space);
}
