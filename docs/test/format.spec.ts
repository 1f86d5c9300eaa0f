import { readFileSync } from 'node:fs';
import {
  blockedLayout,
  derivePositions,
  murmur3x86_128,
  partitionedLayout,
  standardLayout,
} from '@bloomkit/core';
import { CountingBloomFilter } from '@bloomkit/counting';
import { CuckooFilter } from '@bloomkit/cuckoo';
import { ExceptionFilter } from '@bloomkit/exceptions';
import { kinds } from '@bloomkit/filters';
import { BinaryFuseFilter, fuseKind } from '@bloomkit/fuse';
import { SplitBlockBloomFilter, xxh64 } from '@bloomkit/parquet';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { StandardBloomFilter } from '@bloomkit/standard';
import { WindowBloomFilter } from '@bloomkit/window';
import { describe, expect, it } from 'vitest';

// docs/FORMAT.md must stay true: its tables and hex dumps are parsed and compared with what the code computes.
const doc = readFileSync(new URL('../FORMAT.md', import.meta.url), 'utf8');

/** The bytes of the hex dump that follows `heading` (columns 8–56 of each `offset  bytes  meaning` row). */
function dump(heading: string): string {
  const block = new RegExp(`${heading}[\\s\\S]*?\`\`\`\\n([\\s\\S]*?)\`\`\``).exec(doc)![1]!;
  return block
    .split('\n')
    .slice(1)
    .filter((line) => /^[0-9a-f]{2} /.test(line))
    .map((line) => line.slice(8, 57).replace(/ /g, ''))
    .join('');
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const words = (key: string, seed: number) =>
  murmur3x86_128(key, seed)
    .map((w) => w.toString(16).padStart(8, '0'))
    .join(' ');

describe('docs/FORMAT.md', () => {
  it('§6.1: the standard file is byte for byte what m = 64, k = 3, seed 0 holding "hello" serializes to', () => {
    const filter = new StandardBloomFilter({ bits: 64, hashes: 3, seed: 0 });
    filter.add('hello');
    expect(hex(filter.serialize())).toBe(dump('### 6.1'));
    expect(dump('### 6.1').length).toBe(76 * 2);
    expect(StandardBloomFilter.deserialize(Buffer.from(dump('### 6.1'), 'hex')).has('hello')).toBe(true);
  });

  it('§6.2: the counting file (a repeated position, a delete) is what the code writes', () => {
    const filter = new CountingBloomFilter({ bits: 16, hashes: 3, seed: 0, counterBits: 4 });
    filter.add('hello');
    filter.add('hello');
    filter.add('world');
    filter.delete('world');
    expect(hex(filter.serialize())).toBe(dump('### 6.2'));
    expect(CountingBloomFilter.deserialize(Buffer.from(dump('### 6.2'), 'hex')).countOf('hello')).toBe(2);
  });

  it('§6.3: the scalable file (two nested envelopes) is what the code writes', () => {
    const filter = ScalableBloomFilter.create(1, 0.01, { seed: 0 });
    filter.add('hello');
    filter.add('world');
    expect(hex(filter.serialize())).toBe(dump('### 6.3'));
    expect(dump('### 6.3').length).toBe(220 * 2);
  });

  it('§6.4: the exceptions file (a nested standard filter, two exceptions in byte order) is what the code writes', () => {
    const filter = ExceptionFilter.wrap(new StandardBloomFilter({ bits: 8, hashes: 1, seed: 0 }));
    filter.add('hello');
    expect(filter.addException('safe')).toBe(true);
    expect(filter.addException('apple')).toBe(true);
    expect(hex(filter.serialize())).toBe(dump('### 6.4'));
    expect(dump('### 6.4').length).toBe(130 * 2);
    const read = ExceptionFilter.deserialize(Buffer.from(dump('### 6.4'), 'hex'));
    expect([read.has('hello'), read.has('safe'), read.has('apple')]).toEqual([true, false, false]);
  });

  it('§6.5: the window file (one key, one shift) is what the code writes, and reads back', () => {
    const filter = WindowBloomFilter.create(1, 0.5);
    expect([filter.hashes, filter.ageSlices, filter.sliceBits, filter.generation]).toEqual([1, 1, 64, 1]);
    filter.add('hello');
    expect(hex(filter.serialize())).toBe(dump('### 6.5'));
    expect(dump('### 6.5').length).toBe(140 * 2);
    const read = WindowBloomFilter.deserialize(Buffer.from(dump('### 6.5'), 'hex'));
    expect([read.has('hello'), read.reach().keys]).toEqual([true, 1]);
  });

  it('§6.7: the binary fuse file is what the code writes, and reads back', () => {
    const filter = BinaryFuseFilter.build(['apple', 'banana', 'cherry']);
    expect(hex(filter.serialize())).toBe(dump('### 6.7'));
    expect(dump('### 6.7').length).toBe(84 * 2);
    const read = BinaryFuseFilter.deserialize(Buffer.from(dump('### 6.7'), 'hex'));
    expect(read.hasMany(['apple', 'banana', 'cherry'])).toEqual([true, true, true]);
    expect(read.reference().seed).toBe(0x6df6b22537d23467n);
  });

  it('§6.8: the cuckoo file is what the code writes, and reads back', () => {
    const filter = CuckooFilter.create(10, 0.01);
    for (const key of ['apple', 'banana', 'cherry']) filter.add(key);
    expect(hex(filter.serialize())).toBe(dump('### 6.8'));
    expect(dump('### 6.8').length).toBe(75 * 2);
    const read = CuckooFilter.deserialize(Buffer.from(dump('### 6.8'), 'hex'));
    expect(read.hasMany(['apple', 'banana', 'cherry'])).toEqual([true, true, true]);
    expect([read.buckets, read.fingerprintBits, read.size]).toEqual([3, 10, 3]);
  });

  it('§6.6: the split-block file is what the code writes; its Parquet form and the §3.7 check values hold', () => {
    const filter = SplitBlockBloomFilter.ofSize(32);
    filter.add('hello');
    expect(hex(filter.serialize())).toBe(dump('### 6.6'));
    expect(dump('### 6.6').length).toBe(92 * 2);
    expect(SplitBlockBloomFilter.deserialize(Buffer.from(dump('### 6.6'), 'hex')).has('hello')).toBe(true);
    expect(hex(filter.toParquet())).toBe(
      `15401c1c00001c1c00001c1c000000${dump('### 6.6').slice(0x38 * 2, 0x58 * 2)}`,
    );
    expect(doc).toContain(
      `XXH64("") = \`${xxh64('').toString(16)}\`, XXH64("hello") = \`${xxh64('hello').toString(16)}\``,
    );
  });

  it('§2: the table of kinds names every kind the code knows, with its id', () => {
    const table = /## 2\. Kinds[\s\S]*?\n\n([\s\S]*?)\n\n/.exec(doc)![1]!;
    const rows = [...table.matchAll(/^\| (\d+) \| ([a-z]+) \|/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(rows).toEqual(['0 invalid', ...kinds().map((Class) => `${Class.kind.id} ${Class.kind.name}`)]);
    expect(kinds().map((Class) => Class.kind)).toContain(fuseKind);
  });

  it('§4: every hash check value is what the hash computes', () => {
    const rows = [...doc.matchAll(/^\| "([^"]*)"[^|]*\| (\d+)[^|]*\| `([0-9a-f ]+)` \|$/gm)];
    expect(rows.length).toBe(9);
    for (const [, key, seed, expected] of rows) expect(words(key!, Number(seed))).toBe(expected);
  });

  it('§5: every position check value, narrow and wide, is what derivePositions gives', () => {
    const hash = Uint32Array.from(murmur3x86_128('hello', 0));
    const rows = [...doc.matchAll(/^\| (\d+)(?: \([^)]*\))? \| (\d+(?:, \d+){3}) \|$/gm)];
    expect(rows.length).toBe(5);
    for (const [, m, expected] of rows) {
      const out = new Float64Array(4);
      derivePositions(hash, standardLayout.geometry(Number(m), 4), 4, out);
      expect(Array.from(out).join(', ')).toBe(expected);
    }
    const blocked = new Float64Array(4);
    derivePositions(hash, blockedLayout.geometry(512_000, 4), 4, blocked);
    expect(doc).toContain(
      `the positions are ${Array.from(blocked).slice(0, 3).join(', ')} and ${blocked[3]} (block`,
    );
    const sliced = new Float64Array(4);
    derivePositions(hash, partitionedLayout.geometry(64, 4), 4, sliced);
    expect(doc).toContain(`the positions are ${Array.from(sliced).slice(0, 3).join(', ')} and ${sliced[3]}`);
  });
});
