import { readFileSync } from 'node:fs';
import { derivePartitionedPositions, murmur3x86_128 } from '@bloomkit/core';
import { describe, expect, it } from 'vitest';
import { StandardBloomFilter } from '../src/index.js';

// docs/FORMAT.md §6 must stay true: its hex dump is parsed and compared with what the code writes.
const doc = readFileSync(new URL('../../../docs/FORMAT.md', import.meta.url), 'utf8');

describe('docs/FORMAT.md worked example', () => {
  it('is byte for byte what a standard filter (m = 64, k = 3, seed 0) holding "hello" serializes to', () => {
    const dump = /## 6\. Worked example[\s\S]*?```\n([\s\S]*?)```/.exec(doc)![1]!;
    const hex = dump
      .split('\n')
      .slice(1)
      .filter((line) => /^[0-9a-f]{2} /.test(line))
      .map((line) => line.slice(8, 57).replace(/ /g, ''))
      .join('');
    const filter = new StandardBloomFilter({ bits: 64, hashes: 3, seed: 0 });
    filter.add('hello');
    expect(Buffer.from(filter.serialize()).toString('hex')).toBe(hex);
    expect(hex.length).toBe(76 * 2);
  });

  it('states the hash check values and the partitioned positions the code produces', () => {
    const hello = murmur3x86_128('hello', 0)
      .map((w) => w.toString(16).padStart(8, '0'))
      .join(' ');
    expect(doc).toContain(`| "hello" | 0 | \`${hello}\` |`);
    const fox = murmur3x86_128('The quick brown fox jumps over the lazy dog', 0);
    expect(doc).toContain(fox.map((w) => w.toString(16).padStart(8, '0')).join(' '));
    const positions = new Float64Array(4);
    derivePartitionedPositions(Uint32Array.from(murmur3x86_128('hello', 0)), 16, 4, positions);
    expect(doc).toContain(
      `the positions are ${Array.from(positions).slice(0, 3).join(', ')} and ${positions[3]}`,
    );
  });
});
