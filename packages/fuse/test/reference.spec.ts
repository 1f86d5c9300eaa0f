import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32c } from '@bloomkit/core/kit';
import { yieldToRunner } from '@bloomkit/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { setKernelBackend } from '../../core/src/kernel/backend.js';
import { BinaryFuseFilter } from '../src/index.js';
import { KEY_SETS, keysOf } from './support/key-sets.js';

// fromHashes is byte for byte the C reference (FastFilter/xor_singleheader `binaryfusefilter.h`, commit c482686):
// the struct's every field and every fingerprint, for 8 and 16 bits, over key sets from 0 to 10^6 keys with and
// without duplicates. The reference's output is held in golden/reference.json (its fields and the CRC-32C of its
// fingerprints, written by this test from the compiled reference). Where the header is at hand
// (BLOOMKIT_FUSE_REFERENCE names its folder) and a C compiler is, the reference is compiled and run on every set
// here too (test/reference/harness.c, with qsort given a valid comparator), and BLOOMKIT_FUSE_WRITE_GOLDEN=1 writes
// the golden file from it.

interface Golden {
  readonly set: string;
  readonly bits: 8 | 16;
  readonly seed: string;
  readonly size: number;
  readonly segmentLength: number;
  readonly segmentLengthMask: number;
  readonly segmentCount: number;
  readonly segmentCountLength: number;
  readonly arrayLength: number;
  readonly fingerprintsCrc32c: number;
}

const goldenPath = new URL('./golden/reference.json', import.meta.url);
const header = process.env.BLOOMKIT_FUSE_REFERENCE;

function compiledReference(): string | undefined {
  if (header === undefined || !existsSync(join(header, 'binaryfusefilter.h'))) return undefined;
  const out = join(mkdtempSync(join(tmpdir(), 'fuse-reference-')), 'harness');
  const source = new URL('./reference/harness.c', import.meta.url).pathname;
  execFileSync('cc', ['-O2', `-I${header}`, '-o', out, source, '-lm']);
  return out;
}

function runReference(binary: string, keys: BigUint64Array, bits: 8 | 16, set: string): Golden {
  const out = execFileSync(binary, [String(bits)], {
    input: new Uint8Array(keys.buffer, keys.byteOffset, keys.byteLength),
    maxBuffer: 1 << 26,
  });
  const view = new DataView(out.buffer, out.byteOffset, out.length);
  const field = (i: number) => view.getUint32(8 + 4 * i, true);
  return {
    set,
    bits,
    seed: view.getBigUint64(0, true).toString(),
    size: field(0),
    segmentLength: field(1),
    segmentLengthMask: field(2),
    segmentCount: field(3),
    segmentCountLength: field(4),
    arrayLength: field(5),
    fingerprintsCrc32c: crc32c(out.subarray(32)),
  };
}

function ours(keys: BigUint64Array, bits: 8 | 16, set: string): Golden {
  const filter = BinaryFuseFilter.fromHashes(keys, { fingerprintBits: bits });
  const ref = filter.reference();
  const fp = ref.fingerprints;
  return {
    set,
    bits,
    seed: ref.seed.toString(),
    size: keys.length,
    segmentLength: ref.segmentLength,
    segmentLengthMask: ref.segmentLengthMask,
    segmentCount: ref.segmentCount,
    segmentCountLength: ref.segmentCountLength,
    arrayLength: ref.arrayLength,
    fingerprintsCrc32c: crc32c(new Uint8Array(fp.buffer, fp.byteOffset, fp.byteLength)),
  };
}

describe('fromHashes is the C reference, byte for byte', () => {
  afterEach(() => setKernelBackend('auto'));
  const binary = compiledReference();
  const golden: Golden[] = existsSync(goldenPath) ? JSON.parse(readFileSync(goldenPath, 'utf8')) : [];

  it('every field and the fingerprints of every set, 8 and 16 bits (the golden file, and the compiled reference when at hand)', async () => {
    const writing = binary !== undefined && process.env.BLOOMKIT_FUSE_WRITE_GOLDEN === '1';
    const written: Golden[] = [];
    let compared = 0;
    for (const set of KEY_SETS) {
      const keys = keysOf(set);
      const before = keys.slice();
      for (const bits of [8, 16] as const) {
        // The build's steps in JavaScript and on fuse-build.wat (core's one switch) give the same bytes.
        setKernelBackend('javascript');
        const inJavaScript = ours(keys, bits, set.name);
        setKernelBackend('auto');
        const mine = ours(keys, bits, set.name);
        expect(inJavaScript).toEqual(mine);
        expect(keys).toEqual(before); // the caller's array is left as it was
        await yieldToRunner(); // four builds of up to 10^6 keys: the worker answers the runner between them
        if (binary !== undefined) {
          const reference = runReference(binary, keys, bits, set.name);
          expect(mine).toEqual(reference);
          written.push(reference);
          compared++;
        }
        if (writing) continue;
        const stored = golden.find((g) => g.set === set.name && g.bits === bits);
        expect(stored, `golden/reference.json has ${set.name}, ${bits} bits`).toBeDefined();
        expect(mine).toEqual(stored);
      }
    }
    if (writing) {
      writeFileSync(goldenPath, `${JSON.stringify(written, null, 1)}\n`);
    }
    expect(golden.length + compared).toBeGreaterThanOrEqual(2 * KEY_SETS.length);
  });
});
