import { existsSync } from 'node:fs';
import type { Key } from '@bloomkit/core';
import { batchHashes, batchLineEnds, hashInto, hashLineBatch, hashRangeInto } from '@bloomkit/core/kit';
import { BinaryFuseFilter, MAX_FUSE_KEYS } from '@bloomkit/fuse';
import { CliError, EXIT } from '../errors.js';
import { writeFilterFile } from '../files.js';
import type { AnyFilter } from '../filters.js';
import { type KeySource, visitKeys } from '../keys.js';
import { LF } from '../lines.js';
import { type WriterOptions, withLockedFile } from '../locked-file.js';

/** The fixed-set kinds `build` makes: a binary fuse filter of 8- or 16-bit fingerprints. */
export const BUILD_KINDS = ['fuse8', 'fuse16'] as const;

/** What `build` makes: a kind of {@link BUILD_KINDS} and the seed its keys are hashed with. */
export interface BuildSpec {
  readonly kind: (typeof BUILD_KINDS)[number];
  readonly seed?: number | 'random' | undefined;
}

/**
 * `build FILE`: the filter of a fixed set, built once from every key given (arguments, `--from` files or stdin)
 * and written atomically; an existing file is kept unless `--force`. Keys stream past once: each is hashed where it
 * lies (the first 64 bits of MurmurHash3 x86_128, 8 bytes a key kept), so memory is about 8 bytes a key while
 * reading and 24 more while building. A stop signal before the build ends the run with nothing written: half a set
 * is not the set.
 */
export async function runBuild(
  file: string,
  spec: BuildSpec,
  source: KeySource,
  force: boolean,
  writer: WriterOptions,
): Promise<number> {
  // The flag's parser checked the range; 'random' is drawn here, once, before any key is hashed.
  const seed = spec.seed === 'random' ? crypto.getRandomValues(new Uint32Array(1))[0]! : (spec.seed ?? 0);
  const fingerprintBits = spec.kind === 'fuse16' ? 16 : 8;
  const hashes = new HashList();
  const hash = new Int32Array(4);
  await visitKeys(
    source,
    {
      argument(key: Key) {
        hashInto(key, seed, hash, 'build');
        hashes.push(hash[0]!, hash[1]!);
      },
      bytes(chunk, start, end) {
        hashRangeInto(chunk, start, end, seed, hash);
        hashes.push(hash[0]!, hash[1]!);
      },
      lines(chunk, start, end, separator) {
        for (let from = start; from < end; ) {
          const count = hashLineBatch(chunk, from, end, separator, separator === LF, seed);
          if (count === 0) throw new Error(`build: no separator in [${from}, ${end})`);
          const words = batchHashes();
          for (let j = 0; j < count; j++) hashes.push(words[4 * j]!, words[4 * j + 1]!);
          from = batchLineEnds()[count - 1]!;
        }
      },
    },
    writer.interrupts,
  );
  if (writer.interrupts.exitStatus !== undefined) return writer.interrupts.exitStatus;
  const filter = BinaryFuseFilter.fromKeyHashes(hashes.view(), { fingerprintBits, seed });
  return withLockedFile(file, writer, (target) => {
    if (!force && existsSync(target))
      throw new CliError(`${file}: already exists (use --force to replace it)`);
    writeFilterFile(target, filter as unknown as AnyFilter, file);
    return EXIT.ok;
  });
}

/** The keys' 64-bit hashes as they arrive: two u32 words a key (h1, h2), in an array that doubles as it fills. */
class HashList {
  private words = new Uint32Array(2 * 65_536);
  private length = 0;

  /** Appends one key's hash; more than the build's limit of keys is a CliError, before the array outgrows it. */
  push(low: number, high: number): void {
    if (this.length === this.words.length) {
      if (this.length / 2 >= MAX_FUSE_KEYS) {
        throw new CliError(
          `build: a fixed set takes at most 2^27 keys (${MAX_FUSE_KEYS}); the input has more`,
        );
      }
      const grown = new Uint32Array(Math.min(2 * this.words.length, 2 * MAX_FUSE_KEYS));
      grown.set(this.words);
      this.words = grown;
    }
    this.words[this.length++] = low;
    this.words[this.length++] = high;
  }

  /** The hashes so far, as the 64-bit values fromKeyHashes takes (a view, no copy). */
  view(): BigUint64Array {
    return new BigUint64Array(this.words.buffer, 0, this.length / 2);
  }
}
