import { BlockedBloomFilter } from '@bloomkit/blocked';
import { type BloomFilter, type FilterFact, FormatError, InvalidArgumentError } from '@bloomkit/core';
import { CountingBloomFilter } from '@bloomkit/counting';
import { BinaryFuseFilter } from '@bloomkit/fuse';
import { PartitionedBloomFilter } from '@bloomkit/partitioned';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { StandardBloomFilter } from '@bloomkit/standard';
import { urlKeys } from '@bloomkit/testkit';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type AnyFilter,
  classOf,
  createFilter,
  deserializeAny,
  type FilterClass,
  fromJSONAny,
  isSingleKind,
  kindById,
  kindByName,
  kindNames,
  kinds,
  registerKind,
} from '../src/index.js';

const BUILT_IN: readonly (readonly [FilterClass, number, string])[] = [
  [StandardBloomFilter, 1, 'standard'],
  [PartitionedBloomFilter, 2, 'partitioned'],
  [CountingBloomFilter, 3, 'counting'],
  [ScalableBloomFilter, 4, 'scalable'],
  [BlockedBloomFilter, 5, 'blocked'],
];

describe('the table of kinds', () => {
  it('holds every built-in kind once, by id and by name, each id and name unique', () => {
    for (const [Class, id, name] of BUILT_IN) {
      expect(kindById(id)).toBe(Class);
      expect(kindByName(name)).toBe(Class);
      expect(Class.kind).toMatchObject({ id, name, className: (Class as { name?: string }).name });
    }
    const ids = kinds().map((Class) => Class.kind.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(kindNames()).size).toBe(ids.length);
    expect(kindNames().slice(0, 5)).toEqual(BUILT_IN.map(([, , name]) => name));
    expect(kindById(0)).toBeUndefined();
    expect(kindByName('nope')).toBeUndefined();
    expect(isSingleKind(ScalableBloomFilter)).toBe(false);
    expect(isSingleKind(CountingBloomFilter)).toBe(true);
  });

  it('finds the kind of a filter object', () => {
    for (const [Class] of BUILT_IN) expect(classOf(Class.create(100, 0.01))).toBe(Class);
    expect(classOf({} as never)).toBeUndefined();
  });
});

describe('deserializeAny and fromJSONAny', () => {
  const keys = urlKeys(300, 'any', 1);
  it('read every kind from bytes, parts and JSON, exactly as the kind reads it', () => {
    for (const [Class] of BUILT_IN) {
      const filter = Class.create(200, 0.01, { seed: 5 });
      filter.addAll(keys);
      const bytes = filter.serialize();
      const read = deserializeAny(bytes);
      expect(read.Class).toBe(Class);
      expect(read.header).toMatchObject({ kind: Class.kind.id, seed: 5, byteLength: bytes.length });
      expect(read.filter.serialize()).toEqual(bytes);
      expect(deserializeAny(filter.serializeParts()).filter.serialize()).toEqual(bytes);
      expect(fromJSONAny(JSON.stringify(filter)).serialize()).toEqual(bytes);
      expect(fromJSONAny(filter.toJSON()).serialize()).toEqual(bytes);
    }
  });

  it('pass their options to the kind: in place, and without the checksum', () => {
    const filter = StandardBloomFilter.create(100, 0.01);
    const bytes = filter.serialize();
    const inPlace = deserializeAny(bytes, { copy: false }).filter as StandardBloomFilter;
    inPlace.add('x');
    expect(inPlace.syncBytes().buffer).toBe(bytes.buffer);
    expect(StandardBloomFilter.deserialize(bytes).has('x')).toBe(true);
    bytes[70] = bytes[70]! ^ 1;
    expect(() => deserializeAny(bytes)).toThrow(/checksum mismatch/);
    expect(deserializeAny(bytes, { verifyChecksum: false }).header.checksumVerified).toBe(false);
  });

  it('refuse an unknown kind with a FormatError that lists the known ones, and foreign bytes and JSON', () => {
    const bytes = StandardBloomFilter.create(10, 0.1).serialize();
    bytes[5] = 99;
    expect(() => deserializeAny(bytes, { verifyChecksum: false })).toThrow(FormatError);
    expect(() => deserializeAny(bytes, { verifyChecksum: false })).toThrow(
      /unknown filter kind 99 \(known: 1 standard, 2 partitioned, 3 counting, 4 scalable, 5 blocked/,
    );
    expect(() => deserializeAny(new Uint8Array(40))).toThrow(FormatError);
    expect(() => fromJSONAny('{')).toThrow(FormatError);
    expect(() => fromJSONAny({ kind: 'nope' })).toThrow(/kind must be one of 1 standard/);
    expect(() => fromJSONAny(null)).toThrow(FormatError);
  });
});

describe('createFilter', () => {
  it('builds any kind by name, from a capacity and rate or an explicit shape', () => {
    for (const [Class, , name] of BUILT_IN) {
      const filter = createFilter(name, { capacity: 1000, fpr: 0.01, seed: 3 });
      expect(filter).toBeInstanceOf(Class);
      expect(filter.serialize()).toEqual(Class.create(1000, 0.01, { seed: 3 }).serialize());
    }
    const explicit = createFilter('partitioned', { bits: 1000, hashes: 4 });
    expect([explicit.bits, explicit.hashes]).toEqual([1000, 4]);
    const counting = createFilter('counting', { bits: 64, hashes: 3, counterBits: 8 }) as CountingBloomFilter;
    expect(counting.counterBits).toBe(8);
  });

  it('refuses bad combinations with an InvalidArgumentError naming the parameters', () => {
    const cases: [string, Parameters<typeof createFilter>[1], RegExp][] = [
      ['nope', { capacity: 1, fpr: 0.1 }, /kind must be one of 1 standard/],
      ['standard', { bits: 10 }, /bits and hashes go together/],
      ['standard', { bits: 10, hashes: 2, capacity: 5 }, /not both/],
      ['standard', {}, /give capacity and fpr/],
      ['scalable', { bits: 10, hashes: 2 }, /sized by capacity and fpr/],
      ['blocked', { capacity: 10, fpr: 0.1, counterBits: 8 }, /counterBits applies to a kind with counters/],
      ['standard', { capacity: 0, fpr: 0.1 }, /capacity must be/],
    ];
    for (const [name, spec, message] of cases) {
      expect(() => createFilter(name, spec)).toThrow(InvalidArgumentError);
      expect(() => createFilter(name, spec)).toThrow(message);
    }
  });
});

describe('a new kind by the recipe (one class with its record, one entry in the table)', () => {
  it('is read, created, found and listed with no other edit', async () => {
    const { ToyBloomFilter } = await import('./fixtures/toy-kind.mjs');
    expect(kindByName('toy')).toBe(ToyBloomFilter);
    const toy = createFilter('toy', { capacity: 500, fpr: 0.01 });
    expect(toy).toBeInstanceOf(ToyBloomFilter);
    toy.addAll(['a', 'b']);
    const read = deserializeAny(toy.serialize());
    expect(read.Class).toBe(ToyBloomFilter);
    expect(read.header.kind).toBe(200);
    expect(read.filter.has('a') && read.filter.has('b')).toBe(true);
    expect(classOf(toy)?.kind.name).toBe('toy');
    expect(fromJSONAny(JSON.stringify(toy)).serialize()).toEqual(toy.serialize());
    // Its bytes are its own kind: the standard class refuses them, though the layout is the same.
    expect(() => StandardBloomFilter.deserialize(toy.serialize())).toThrow(/kind 200, not a standard filter/);
  });

  it('cannot take an id or name already in the table, nor a malformed record', async () => {
    const { ToyBloomFilter } = await import('./fixtures/toy-kind.mjs');
    expect(() => registerKind(ToyBloomFilter)).toThrow(/clashes with kind 200 toy/);
    const like = (kind: object) => Object.assign(class extends ToyBloomFilter {}, { kind }) as never;
    const record = ToyBloomFilter.kind;
    expect(() => registerKind(like({ ...record, id: 1, name: 'other' }))).toThrow(
      /clashes with kind 1 standard/,
    );
    expect(() => registerKind(like({ ...record, id: 256, name: 'other' }))).toThrow(/\[1, 255\]/);
    expect(() => registerKind(like({ ...record, id: 201, name: 'Bad Name' }))).toThrow(/lower-case/);
    expect(() => registerKind({} as never)).toThrow(InvalidArgumentError);
  });
});

describe('the types of what deserializeAny and fromJSONAny return', () => {
  it('is the union of the built-in kinds (and BloomFilter for a registered kind), narrowed by instanceof', () => {
    const scalable = ScalableBloomFilter.create(100, 0.01);
    scalable.add('a');
    const read = deserializeAny(scalable.serialize());
    expectTypeOf(read.filter).toEqualTypeOf<AnyFilter | BloomFilter>();
    expectTypeOf(fromJSONAny(scalable.toJSON())).toEqualTypeOf<AnyFilter | BloomFilter>();
    expectTypeOf<ScalableBloomFilter>().toExtend<AnyFilter>();
    expectTypeOf<CountingBloomFilter>().toExtend<AnyFilter>();
    const filter = read.filter;
    // Narrowed, the kind's own members are there: a compile error here would be a wrong declaration.
    const subFilters = filter instanceof ScalableBloomFilter ? filter.filterCount : -1;
    expect(subFilters).toBe(1);
  });
});

describe('the binary fuse kind in the table (a fixed set: built from its keys, never created empty)', () => {
  const keys = urlKeys(500, 'fuse-any', 1);
  it('is kind 9, read by deserializeAny and fromJSONAny, and its class is found from a filter', () => {
    const Fuse = kindByName('fuse')!;
    expect(kindById(9)).toBe(Fuse);
    expect(isSingleKind(Fuse)).toBe(false);
    const filter = BinaryFuseFilter.build(keys, { seed: 7, fingerprintBits: 16 });
    expect(classOf(filter)).toBe(Fuse);
    const bytes = filter.serialize();
    const read = deserializeAny(bytes);
    expect(read.Class).toBe(Fuse);
    expect(read.header).toMatchObject({ kind: 9, seed: 7, byteLength: bytes.length });
    expect(read.filter.serialize()).toEqual(bytes);
    expect(read.filter.hasMany(keys).every(Boolean)).toBe(true);
    expect(deserializeAny(filter.serializeParts()).filter.serialize()).toEqual(bytes);
    expect(fromJSONAny(JSON.stringify(filter)).serialize()).toEqual(bytes);
  });

  it('createFilter refuses it with a typed error that says how a fixed set is built', () => {
    expect(() => createFilter('fuse', { capacity: 1000, fpr: 0.01 })).toThrow(
      /fixed set and is built from its keys: BinaryFuseFilter\.build/,
    );
    expect(() => createFilter('fuse', { capacity: 1000, fpr: 0.01 })).toThrow(InvalidArgumentError);
    expect(() => createFilter('fuse', { bits: 1000, hashes: 3 })).toThrow(/sized by capacity and fpr/);
  });
});

describe('facts()', () => {
  /** What a fact is: a camelCase key, a label and a text for people, a JSON value. */
  function checkFacts(name: string, facts: readonly FilterFact[]): Record<string, unknown> {
    expect(facts.length, name).toBeGreaterThan(0);
    expect(new Set(facts.map((fact) => fact.key)).size, name).toBe(facts.length);
    for (const fact of facts) {
      expect(fact.key, name).toMatch(/^[a-z][A-Za-z]+$/);
      expect([typeof fact.label, typeof fact.text], `${name} ${fact.key}`).toEqual(['string', 'string']);
      expect(fact.text.length, `${name} ${fact.key}`).toBeGreaterThan(0);
      expect(['number', 'string', 'boolean'].includes(typeof fact.value) || fact.value === null).toBe(true);
    }
    return Object.fromEntries(facts.map((fact) => [fact.key, fact.value]));
  }
  type WithFacts = BloomFilter & { facts?: () => FilterFact[]; addAll(keys: string[]): number };

  it('every kind beyond a plain Bloom layout states its facts; the layouts have none', () => {
    const keys = urlKeys(200, 'facts', 1);
    const made = (name: string, spec = {}) => {
      const filter = createFilter(name, { capacity: 1000, fpr: 0.01, ...spec }) as WithFacts;
      filter.addAll(keys);
      return filter;
    };
    for (const name of ['standard', 'partitioned', 'blocked']) expect(made(name).facts).toBeUndefined();
    const window = made('window') as WithFacts & { generation: number };
    expect(checkFacts('window', window.facts!())).toMatchObject({
      windowKeys: 1000,
      generation: window.generation,
      reachKeys: 200,
    });
    const timed = checkFacts('time window', made('window', { duration: 60_000 }).facts!());
    expect(timed).toMatchObject({ durationMs: 60_000, shortened: false });
    expect(checkFacts('counting', made('counting', { counterBits: 8 }).facts!())).toEqual({
      counterBits: 8,
      saturatedCounters: 0,
    });
    expect(checkFacts('scalable', made('scalable').facts!())).toEqual({
      subFilterCount: 1,
      growth: 1.5,
      tightening: 0.93,
    });
    const parquet = createFilter('parquet', { capacity: 1000, fpr: 0.01 }) as WithFacts & { blocks: number };
    expect(checkFacts('parquet', parquet.facts!())).toEqual({ type: 'BYTE_ARRAY', blocks: parquet.blocks });
    expect(checkFacts('cuckoo', made('cuckoo').facts!())).toMatchObject({ bucketSize: 4, maxKicks: 1000 });
    expect(checkFacts('fuse', BinaryFuseFilter.build(keys).facts())).toMatchObject({ keys: 'murmur3' });
  });
});
