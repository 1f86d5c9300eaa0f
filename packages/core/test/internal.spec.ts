import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as internal from '../src/internal.js';

const SOURCE = readFileSync(new URL('../src/internal.ts', import.meta.url), 'utf8');

describe('@bloomkit/core/internal', () => {
  it('is a small contract: at most 46 names, each export documented', () => {
    const exports = [...SOURCE.matchAll(/(\/\*\*[\s\S]*?\*\/\n)?export \{([^}]*)\}/g)];
    const names = exports.flatMap((m) =>
      m[2]!
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    );
    // 36 since the window kind: its clock option is checked alike by the local filter and the Redis store; 37 since
    // the CLI hashes lines where they lie in its read buffer (hashRangeInto); 39 and 40 since keys are hashed in
    // batches by the kinds outside the engine too (hashBatch, batchHashes) and by the CLI (hashRangeBatch); 41
    // since the kinds outside the engine check a batch of hashes alike (checkHashBatch); 42 since the CLI's lines
    // are found and hashed together (hashLineBatch and batchLineEnds in place of hashRangeBatch); 43 since a
    // counting filter's counters go into a kernel memory like a bit filter's bits (newCounterArray); 46 since the
    // window kind's batches run on a kernel of its own (newKernelBytes for its ring, windowKernel and its type); 47
    // since the Parquet split-block kind hashes with XXH64 (xxh64Hasher).
    expect(names.length).toBeLessThanOrEqual(47);
    for (const m of exports) expect(m[1], `doc comment before export {${m[2]}}`).toBeDefined();
    // Every runtime name is there.
    for (const name of names.filter((n) => !n.startsWith('type '))) expect(internal).toHaveProperty(name);
  });
});
