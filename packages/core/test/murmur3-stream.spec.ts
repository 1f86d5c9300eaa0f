import fc from 'fast-check';
import murmurReference from 'murmurhash3js-revisited';
import { describe, expect, it } from 'vitest';
import { hashInto } from '../src/murmur3.js';
import { Murmur3Stream } from '../src/murmur3-stream.js';

describe('Murmur3Stream', () => {
  it('hashes a key given in any pieces exactly as hashing it at once', () => {
    const stream = new Murmur3Stream();
    const whole = new Int32Array(4);
    const pieces = new Int32Array(4);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat(200)), fc.nat(), (bytes, cuts, seed) => {
        hashInto(bytes, seed, whole, 'test');
        stream.reset(seed);
        const points = [...cuts.map((c) => c % (bytes.length + 1)), bytes.length].sort((a, b) => a - b);
        let start = 0;
        for (const point of points) {
          stream.update(bytes, start, point);
          start = point;
        }
        stream.digestInto(pieces);
        expect(pieces).toEqual(whole);
      }),
      { numRuns: 2_000, seed: 7 },
    );
  });

  it('agrees with the reference on a long key fed a block at a time', () => {
    const bytes = new Uint8Array(100_003).map((_, i) => (i * 131 + 7) & 0xff);
    const stream = new Murmur3Stream();
    stream.reset(42);
    for (let at = 0; at < bytes.length; at += 4099)
      stream.update(bytes, at, Math.min(bytes.length, at + 4099));
    const out = new Int32Array(4);
    stream.digestInto(out);
    const hex = Array.from(out, (h) => (h >>> 0).toString(16).padStart(8, '0')).join('');
    expect(hex).toBe(murmurReference.x86.hash128(bytes as never, 42));
  });
});
