/**
 * The benchmark's keys, generated in the child process before any timing: deterministic (same seed, same keys
 * in every process), so all contenders see exactly the same keys.
 */
/** `url`: flat strings, as read from I/O (the default); `url-cons`: the same text as cons strings; `binary`: 16 bytes. */
export type KeyType = 'url' | 'url-cons' | 'binary';

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

/**
 * URL-like keys of a crawler's frontier, 32 to 41 characters (mean 38), each unique by its last segment; `space`
 * separates present from absent keys (same lengths, a different host word).
 */
export function urlKeys(count: number, space: 'present' | 'absent', seed = 7): string[] {
  const next = splitmix32(seed + (space === 'present' ? 0 : 1_000_003));
  const host = space === 'present' ? 'site' : 'miss';
  const out = new Array<string>(count);
  for (let i = 0; i < count; i++) {
    const a = next();
    const path = next()
      .toString(36)
      .slice(0, 1 + ((a >>> 24) % 7));
    out[i] = `https://www.${host}${a % 10_000}.example/${path}/${i.toString(36).padStart(4, '0')}`;
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

/**
 * The keys as a program reading them has them: one buffer of newline-separated lines (a file, a socket, a pipe),
 * each line decoded into its own flat string. Template literals such as {@link urlKeys} builds are V8 cons strings,
 * which every library reads ~1.8× slower; that cost is the same for all contenders, so it squeezes every ratio
 * toward 1. The `url-cons` workload keeps them, to show that effect.
 */
export function asLines(keys: readonly string[]): string[] {
  const bytes = new TextEncoder().encode(keys.join('\n'));
  const decoder = new TextDecoder();
  const out = new Array<string>(keys.length);
  let start = 0;
  let line = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      out[line++] = decoder.decode(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  return out;
}

export function makeKeys(type: KeyType, count: number, space: 'present' | 'absent'): (string | Uint8Array)[] {
  if (type === 'binary') return binaryKeys(count, space);
  const keys = urlKeys(count, space);
  return type === 'url' ? asLines(keys) : keys;
}
