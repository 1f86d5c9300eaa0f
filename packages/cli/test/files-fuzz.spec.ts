import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BlockedBloomFilter } from '@bloomkit/blocked';
import type { Key } from '@bloomkit/core';
import { crc32c } from '@bloomkit/core/kit';
import { CountingBloomFilter } from '@bloomkit/counting';
import { PartitionedBloomFilter } from '@bloomkit/partitioned';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { StandardBloomFilter } from '@bloomkit/standard';
import { announceFuzz, FUZZ, goldenKeys, TENTH_RUNS, yieldToRunner } from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CliError } from '../src/errors.js';
import { readFilterFile } from '../src/files.js';
import { bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();

/** A small filter of each kind holding the golden keys. */
function filled(filter: { addAll(keys: Iterable<Key>): unknown; serialize(): Uint8Array }): Uint8Array {
  filter.addAll(goldenKeys());
  return filter.serialize();
}

const SAMPLES: Record<string, () => Uint8Array> = {
  standard: () => filled(StandardBloomFilter.create(200, 0.01)),
  partitioned: () => filled(PartitionedBloomFilter.create(200, 0.01)),
  counting: () => filled(CountingBloomFilter.create(200, 0.01)),
  blocked: () => filled(BlockedBloomFilter.create(200, 0.01)),
  scalable: () => filled(ScalableBloomFilter.create(20, 0.01)),
};

/** Mutated files with their checksum recomputed (so the structure checks behind it are what is tested). */
function mutated(bytes: Uint8Array, edits: readonly [number, number][], cut: number | null): Uint8Array {
  const out = bytes.slice(0, cut === null ? bytes.length : cut % (bytes.length + 1));
  for (const [at, value] of edits) if (out.length > 0) out[at % out.length] = value;
  if (out.length >= 28) {
    new DataView(out.buffer).setUint32(out.length - 4, crc32c(out.subarray(0, -4)), true);
  }
  return out;
}

describe('filter files from disk, fuzzed', () => {
  announceFuzz('CLI filter files from disk (per kind; each input is a file write and read)', TENTH_RUNS);
  for (const [kind, make] of Object.entries(SAMPLES)) {
    it(`${kind}: every hostile file is one CliError naming the file, or a filter`, async () => {
      const sample = make();
      const path = join(dir, `fuzz-${kind}.bf`);
      // The file is read with synchronous calls, so the property's awaits alone never let the event loop run.
      let inputs = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.nat(), fc.nat(255)), { maxLength: 6 }),
          fc.option(fc.nat()),
          async (edits, cut) => {
            if (++inputs % 500 === 0) await yieldToRunner();
            writeFileSync(path, mutated(sample, edits, cut));
            try {
              (await readFilterFile(path)).serialize();
            } catch (error) {
              expect(error).toBeInstanceOf(CliError);
              expect((error as Error).message.startsWith(`${path}: `)).toBe(true);
              expect((error as Error).message).not.toContain('\n');
            }
          },
        ),
        // A tenth of the depth: each input is a real file write and read (about 0.6 ms); the decoder behind it is
        // fuzzed at full depth in each kind's package.
        { numRuns: TENTH_RUNS, seed: FUZZ.seed },
      );
    }, 600_000);
  }

  it('the command itself: hostile files give exit 0 or 2 and at most one line on stderr, never a stack trace', async () => {
    const runs = 40;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(SAMPLES)),
        fc.array(fc.tuple(fc.nat(), fc.nat(255)), { maxLength: 6 }),
        fc.option(fc.nat()),
        async (kind, edits, cut) => {
          const path = join(dir, `cli-${kind}.bf`);
          writeFileSync(path, mutated(SAMPLES[kind]!(), edits, cut));
          const [info, has] = await Promise.all([
            bloomkit(['info', path], { cwd: dir }),
            bloomkit(['has', path, 'key'], { cwd: dir }),
          ]);
          for (const run of [info, has]) {
            expect([0, 1, 2]).toContain(run.status);
            expect(run.stderr.split('\n').filter((line) => line !== '').length).toBeLessThanOrEqual(1);
            expect(run.stderr).not.toMatch(/\n\s+at /);
          }
        },
      ),
      { numRuns: runs, seed: FUZZ.seed },
    );
  }, 600_000);
});
