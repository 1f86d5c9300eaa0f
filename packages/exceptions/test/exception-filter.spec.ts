import { BlockedBloomFilter } from '@bloomkit/blocked';
import {
  FormatError,
  IncompatibleFiltersError,
  InvalidArgumentError,
  UnsupportedVersionError,
} from '@bloomkit/core';
import { crc32c } from '@bloomkit/core/kit';
import { CountingBloomFilter } from '@bloomkit/counting';
import { deserializeAny, fromJSONAny, kindByName } from '@bloomkit/filters';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { StandardBloomFilter } from '@bloomkit/standard';
import { splitAt, urlKeys } from '@bloomkit/testkit';
import { WindowBloomFilter } from '@bloomkit/window';
import { describe, expect, it } from 'vitest';
import { ExceptionFilter, exceptionsKind } from '../src/index.js';

/** Keys of `candidates` the filter answers present although they were never added. */
function falsePositives(filter: { has(key: string): boolean }, candidates: readonly string[]): string[] {
  return candidates.filter((key) => filter.has(key));
}

/** A small, crowded filter: many false positives to work with. */
function crowded(): { filter: ExceptionFilter<StandardBloomFilter>; added: string[]; fps: string[] } {
  const filter = ExceptionFilter.wrap(new StandardBloomFilter({ bits: 2_000, hashes: 3, seed: 9 }));
  const added = urlKeys(400, 'added');
  filter.addAll(added);
  const fps = falsePositives(filter, urlKeys(5_000, 'never'));
  return { filter, added, fps };
}

describe('ExceptionFilter', () => {
  it('hides an exception, keeps the others, and reports the nested filter facts', () => {
    const { filter, added, fps } = crowded();
    expect(fps.length).toBeGreaterThan(20);
    const [first, second] = fps as [string, string];
    expect(filter.addException(first)).toBe(true);
    expect(filter.addException(first)).toBe(false);
    expect(filter.has(first)).toBe(false);
    expect(filter.isException(first)).toBe(true);
    expect(filter.has(second)).toBe(true);
    for (const key of added) expect(filter.has(key)).toBe(true);
    expect(filter.exceptionCount).toBe(1);
    expect(filter.exceptionBytes).toBe(4 + new TextEncoder().encode(first).length);
    expect([filter.bits, filter.hashes, filter.seed, filter.count]).toEqual([
      2_000,
      3,
      9,
      filter.filter.count,
    ]);
    expect(filter.expectedFpr()).toBe(filter.filter.expectedFpr());
    expect(filter.hasMany([first, second, added[0]!, 'absent-for-sure-0'])).toEqual(
      [first, second, added[0]!, 'absent-for-sure-0'].map((key) => filter.has(key)),
    );
  });

  it('addException of a key the filter answers absent is a no-op that says so', () => {
    const filter = ExceptionFilter.create(1_000, 0.01);
    const absent = urlKeys(100, 'nowhere').find((key) => !filter.has(key))!;
    expect(filter.addException(absent)).toBe(false);
    expect(filter.exceptionCount).toBe(0);
  });

  it('add lifts an exception: a key added after its exception is never hidden', () => {
    const { filter, fps } = crowded();
    const key = fps[0]!;
    filter.addException(key);
    expect(filter.add(key)).toBe(true); // has(key) was false: the add changed the answer
    expect(filter.has(key)).toBe(true);
    expect(filter.isException(key)).toBe(false);
    expect(filter.add(key)).toBe(false);
    // addAll takes the same path once exceptions exist.
    const other = fps[1]!;
    filter.addException(other);
    expect(filter.addAll([other, fps[2]!])).toBe(1);
    expect(filter.has(other)).toBe(true);
  });

  it('compares keys by their UTF-8 bytes: text, bytes, lone surrogates and bytes that are not UTF-8', () => {
    const filter = ExceptionFilter.wrap(new StandardBloomFilter({ bits: 64, hashes: 1, seed: 1 }));
    const encoder = new TextEncoder();
    for (let i = 0; i < 200; i++) filter.filter.add(`fill-${i}`); // every bit set: everything is present
    expect(filter.addException('é')).toBe(true);
    expect(filter.has(encoder.encode('é'))).toBe(false);
    expect(filter.addException(encoder.encode('é'))).toBe(false);
    expect(filter.addException('a\uD800b')).toBe(true);
    expect(filter.has('a\uFFFDb')).toBe(false);
    expect(filter.has(Uint8Array.of(0x61, 0xef, 0xbf, 0xbd, 0x62))).toBe(false);
    const invalid = Uint8Array.of(0xff, 0xfe, 0x00);
    expect(filter.addException(invalid)).toBe(true);
    expect(filter.has(Uint8Array.of(0xff, 0xfe, 0x00))).toBe(false);
    expect(filter.has('\uDC00\u00ff\u00fe\u0000')).toBe(true); // a text key never meets a bytes-only key
    const bom = Uint8Array.of(0xef, 0xbb, 0xbf, 0x41);
    expect(filter.addException(bom)).toBe(true);
    expect(filter.has('\uFEFFA')).toBe(false);
    expect(filter.has('A')).toBe(true);
    const listed = [...filter.exceptions()];
    expect(listed).toHaveLength(4);
    expect(listed).toContainEqual('é');
    expect(listed).toContainEqual('a\uFFFDb');
    expect(listed).toContainEqual(invalid);
    const copy = ExceptionFilter.deserialize(filter.serialize());
    expect(copy.equals(filter)).toBe(true);
    expect([...copy.exceptions()].length).toBe(4);
    expect(copy.has(invalid)).toBe(false);
    expect(copy.has('\uFEFFA')).toBe(false);
  });

  it('round-trips through bytes, parts, in-place bytes, JSON and the table of kinds', () => {
    const { filter, fps } = crowded();
    for (const key of fps.slice(0, 10)) filter.addException(key);
    const bytes = filter.serialize();
    expect(Buffer.concat(filter.serializeParts())).toEqual(Buffer.from(bytes));
    for (const copy of [
      ExceptionFilter.deserialize(bytes),
      ExceptionFilter.deserialize(splitAt(bytes, [0.1, 0.5, 0.9])),
      ExceptionFilter.deserialize(bytes.slice(), { copy: false }),
      ExceptionFilter.fromJSON(JSON.stringify(filter)),
      deserializeAny(bytes).filter as ExceptionFilter,
      fromJSONAny(filter.toJSON()) as ExceptionFilter,
    ]) {
      expect(copy).toBeInstanceOf(ExceptionFilter);
      expect(copy.serialize()).toEqual(bytes);
      expect(copy.equals(filter)).toBe(true);
      expect(copy.filter).toBeInstanceOf(StandardBloomFilter);
      for (const key of fps) expect(copy.has(key)).toBe(filter.has(key));
    }
    expect(kindByName('exceptions')).toBe(ExceptionFilter);
  });

  it('serializes one set of exceptions one way, whatever order they came in', () => {
    const { filter, fps } = crowded();
    const other = filter.clone();
    for (const key of fps.slice(0, 30)) filter.addException(key);
    for (const key of fps.slice(0, 30).reverse()) other.addException(key);
    expect(other.serialize()).toEqual(filter.serialize());
  });

  it('wraps every kind: blocked, scalable and counting filters read back as themselves', () => {
    const blocked = ExceptionFilter.wrap(BlockedBloomFilter.create(1_000, 0.01, { seed: 3 }));
    const scalable = ExceptionFilter.wrap(ScalableBloomFilter.create(100, 0.01, { seed: 3 }));
    const counting = ExceptionFilter.create(1_000, 0.01, { inner: 'counting', counterBits: 8 });
    for (const filter of [blocked, scalable, counting] as ExceptionFilter[]) {
      filter.addAll(urlKeys(2_000, 'kinds'));
      const fp = falsePositives(filter, urlKeys(20_000, 'kinds-absent'))[0]!;
      expect(filter.addException(fp)).toBe(true);
      const copy = ExceptionFilter.deserialize(filter.serialize());
      expect(copy.filter.constructor).toBe(filter.filter.constructor);
      expect(copy.has(fp)).toBe(false);
      expect(copy.serialize()).toEqual(filter.serialize());
    }
  });

  it('counting: refuses to delete an exception, deletes other keys, and prunes what deletes made absent', () => {
    const filter = ExceptionFilter.wrap(
      new CountingBloomFilter({ bits: 3_000, hashes: 3, seed: 5, counterBits: 8 }),
    );
    const added = urlKeys(500, 'counted');
    filter.addAll(added);
    const fp = falsePositives(filter, urlKeys(5_000, 'counted-absent'))[0]!;
    filter.addException(fp);
    expect(filter.deletes).toBe(true);
    expect(filter.delete(fp)).toBe(false); // known absent: deleting it would lower other keys' counters
    for (const key of added) expect(filter.has(key)).toBe(true);
    for (const key of added) expect(filter.delete(key)).toBe(true);
    expect(filter.filter.has(fp)).toBe(false);
    expect(filter.exceptionCount).toBe(1);
    expect(filter.prune()).toBe(1);
    expect(filter.exceptionCount).toBe(0);
    const plain = ExceptionFilter.create(100, 0.01);
    expect(plain.deletes).toBe(false);
    expect(() => plain.delete('x')).toThrow(/only counting filters delete/);
  });

  it('union keeps only the exceptions that stay true; intersect keeps those it still answers present for', () => {
    const shape = { bits: 2_000, hashes: 3, seed: 9 };
    const a = ExceptionFilter.wrap(new StandardBloomFilter(shape));
    const b = ExceptionFilter.wrap(new StandardBloomFilter(shape));
    const inA = urlKeys(300, 'a');
    const inB = urlKeys(300, 'b');
    a.addAll(inA);
    b.addAll(inB);
    const fpA = falsePositives(a, urlKeys(5_000, 'none')).filter((key) => !b.filter.has(key));
    const both = falsePositives(a, urlKeys(5_000, 'none')).filter((key) => b.filter.has(key));
    a.addException(fpA[0]!);
    a.addException(inB[0]!); // wrongly claimed absent by a: b added it, so the union must show it
    if (both[0] !== undefined) {
      a.addException(both[0]);
      b.addException(both[0]);
    }
    const union = a.union(b);
    for (const key of [...inA, ...inB]) expect(union.has(key)).toBe(key !== inA.find(() => false));
    expect(union.has(fpA[0]!)).toBe(false);
    expect(union.has(inB[0]!)).toBe(true);
    if (both[0] !== undefined) expect(union.has(both[0])).toBe(false);
    const intersection = a.intersect(b);
    expect(intersection.has(fpA[0]!)).toBe(false);
    expect(() =>
      a.union(ExceptionFilter.wrap(new StandardBloomFilter({ ...shape, seed: 1 })) as never),
    ).toThrow(IncompatibleFiltersError);
    expect(() => a.union(new StandardBloomFilter(shape) as never)).toThrow(IncompatibleFiltersError);
  });

  it('clone is independent; clear empties both the filter and the exceptions', () => {
    const { filter, fps } = crowded();
    filter.addException(fps[0]!);
    const copy = filter.clone();
    copy.addException(fps[1]!);
    expect(filter.isException(fps[1]!)).toBe(false);
    expect(copy.equals(filter)).toBe(false);
    copy.clear();
    expect([copy.exceptionCount, copy.count, copy.fillRatio()]).toEqual([0, 0, 0]);
  });

  it('refuses what it cannot wrap or read, with typed errors', () => {
    expect(() => ExceptionFilter.wrap({} as never)).toThrow(InvalidArgumentError);
    const wrapped = ExceptionFilter.create(10, 0.01);
    expect(() => ExceptionFilter.wrap(wrapped)).toThrow(/already/);
    expect(() => ExceptionFilter.create(10, 0.01, { inner: 'exceptions' })).toThrow(InvalidArgumentError);
    expect(() => ExceptionFilter.create(10, 0.01, { inner: 'nope' })).toThrow(InvalidArgumentError);
    expect(() => ExceptionFilter.deserialize(StandardBloomFilter.create(10, 0.01).serialize())).toThrow(
      FormatError,
    );
    expect(() => ExceptionFilter.fromJSON({ format: 'bloomkit' })).toThrow(FormatError);
    expect(exceptionsKind.id).toBe(6);
  });
});

describe('ExceptionFilter.from', () => {
  it('is create(max(1, keys), fpr, options) then addAll(keys), byte for byte, with an empty exception list', () => {
    const keys = ['https://a.example/', 'https://b.example/', 'https://c.example/'];
    const built = ExceptionFilter.from(keys, 0.01, { inner: 'blocked', seed: 9 });
    const expected = ExceptionFilter.create(3, 0.01, { inner: 'blocked', seed: 9 });
    expected.addAll(keys);
    expect(built.serialize()).toEqual(expected.serialize());
    expect(built.exceptionCount).toBe(0);
    for (const key of keys) expect(built.has(key)).toBe(true);
    expect(() => ExceptionFilter.from([new Uint8Array(1), null as never], 0.01)).toThrow(
      'ExceptionFilter.from: keys[1] must be a string or a Uint8Array, got null',
    );
  });
});

describe('an exceptions filter over a time window', () => {
  it('takes the clock its window reads, when deserialized as when created', () => {
    let now = 1_700_000_000_000;
    const clock = () => now;
    const filter = ExceptionFilter.wrap(
      WindowBloomFilter.create(100, 0.01, { duration: 60_000, clock, seed: 3 }),
    );
    filter.addAll(['kept', 'also kept']);
    filter.addException('also kept');
    const bytes = filter.serialize();
    // Read back on the same clock: the window's keys are where they were; far past its horizon, forgotten.
    const read = ExceptionFilter.deserialize(bytes, { clock });
    expect([read.has('kept'), read.has('also kept')]).toEqual([true, false]);
    now += 10 * 60_000;
    expect(read.has('kept')).toBe(false);
    expect(() => ExceptionFilter.deserialize(bytes, { clock: () => Number.NaN }).has('kept')).toThrow(
      InvalidArgumentError,
    );
  });
});

describe('ExceptionFilter.deserialize of a nested filter of another version', () => {
  it('is a FormatError naming the nested filter, not a newer file (FORMAT §3: the outer version was readable)', () => {
    const filter = ExceptionFilter.create(100, 0.01, { seed: 3 });
    filter.add('a');
    filter.addException('b');
    const bytes = filter.serialize().slice();
    bytes[24 + 16 + 4] = 2; // the nested envelope begins after the outer header (24) and params (16)
    new DataView(bytes.buffer).setUint32(bytes.length - 4, crc32c(bytes.subarray(0, -4)), true);
    const refusal = (() => {
      try {
        ExceptionFilter.deserialize(bytes);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(FormatError);
    expect(refusal).not.toBeInstanceOf(UnsupportedVersionError);
    expect((refusal as Error).message).toMatch(/the nested filter has format version 2, the file 1/);
  });
});

describe('an exceptions filter over a Parquet split-block filter (kind 8)', () => {
  it('of a byte column: exceptions as for any kind, through a round trip', () => {
    const filter = ExceptionFilter.create(1_000, 0.01, { inner: 'parquet', type: 'BYTE_ARRAY' });
    const keys = urlKeys(200, 'column');
    filter.addAll(keys);
    expect(filter.addException(keys[0]!)).toBe(true);
    expect(filter.has(keys[0]!)).toBe(false);
    const read = ExceptionFilter.deserialize(filter.serialize());
    expect(read.hasMany(keys)).toEqual(keys.map((_, i) => i !== 0));
  });

  it('of a fixed-width column (typed values, not bytes): refused when built, a FormatError when read', () => {
    for (const type of ['INT32', 'INT64', 'DOUBLE', 'FLOAT', 'BOOLEAN']) {
      expect(() => ExceptionFilter.create(100, 0.01, { inner: 'parquet', type })).toThrow(
        new RegExp(
          `ExceptionFilter.wrap: the filter holds values of a Parquet ${type} column, not keys of bytes`,
        ),
      );
    }
    // A file a writer should not have made: a byte column's filter with its type byte set to INT32 (1), both
    // checksums made good.
    const wrapped = ExceptionFilter.create(100, 0.01, { inner: 'parquet', type: 'BYTE_ARRAY' });
    const nested = wrapped.filter.serialize();
    const bytes = wrapped.serialize().slice();
    const at = 24 + 16; // the nested envelope, after the outer header and params
    bytes[at + 24 + 4] = 1; // its params' physical type
    const view = new DataView(bytes.buffer);
    view.setUint32(at + nested.length - 4, crc32c(bytes.subarray(at, at + nested.length - 4)), true);
    view.setUint32(bytes.length - 4, crc32c(bytes.subarray(0, -4)), true);
    expect(() => ExceptionFilter.deserialize(bytes)).toThrow(FormatError);
    expect(() => ExceptionFilter.deserialize(bytes)).toThrow(/values of a Parquet INT32 column/);
  });
});

describe('facts()', () => {
  it('states the nested kind, the exceptions and their bytes, then the nested filter facts', () => {
    const filter = ExceptionFilter.create(1000, 0.01, { inner: 'counting', counterBits: 8 });
    filter.addAll(urlKeys(1000, 'facts', 3));
    // Keys never added that the filter answers present: each is recorded (about 1% of them).
    const flagged = urlKeys(5000, 'facts-absent', 3).filter((key) => filter.addException(key)).length;
    expect(flagged).toBeGreaterThan(0);
    const byKey = Object.fromEntries(filter.facts().map((fact) => [fact.key, fact.value]));
    expect(byKey).toEqual({
      nestedKind: 'counting',
      exceptionCount: filter.exceptionCount,
      exceptionBytes: filter.exceptionBytes,
      counterBits: 8,
      saturatedCounters: 0,
    });
    expect(filter.exceptionCount).toBe(flagged);
    const text = filter.facts().find((fact) => fact.key === 'exceptionCount')!.text;
    expect(text).toBe(`${flagged} (${filter.exceptionBytes.toLocaleString('en-US')} bytes in the file)`);
    // A nested kind without facts of its own (a plain standard filter) adds none.
    const plain = ExceptionFilter.create(100, 0.01);
    expect(plain.facts().map((fact) => fact.key)).toEqual(['nestedKind', 'exceptionCount', 'exceptionBytes']);
  });
});
