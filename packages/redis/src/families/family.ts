import { type BloomFilter, chooseShape, InvalidArgumentError, type KindRecord } from '@bloomkit/core';
import { checkInteger } from '@bloomkit/core/kit';
import { MAX_STRING_BITS } from '../bytes.js';
import type { RedisFilterOptions } from '../filter-params.js';
import { GUARD_BYTES } from '../guard.js';
import type { RedisStorage } from '../kinds.js';
import type { MetaFields } from '../meta-fields.js';
import type { RedisFilterParams } from '../params.js';
import type { Counter, Store, StoreContext } from '../store.js';
import type { WindowClock } from '../window-clock.js';

/**
 * One storage family: how Redis keeps every kind of that family (kinds.ts says which family a kind is), in one
 * record, so a new family is one record here and one module of Lua rules (packages/redis/lua). The create, import,
 * open and info paths read the record, never a kind's or a family's name.
 */
export interface StorageFamily {
  readonly name: RedisStorage;
  /** An exception list can live beside this family's bits (a set per string). */
  readonly exceptions: boolean;
  /** Each storage string ends with the 4-byte guard after its payload (guard.ts). */
  readonly guarded: boolean;
  /** A kind of this family takes `duration` (a time window). */
  readonly timed: boolean;
  /** Always stores the capacity and rate it was sized for (never built from bits and hashes). */
  readonly alwaysSized: boolean;
  /** What to try when a filter of this family does not fit one Redis string. */
  readonly tooBig: string;
  /** The Lua module of its rules (packages/redis/lua; the shared rules' or its own). */
  readonly lua: string;
  /** The stored parameters for create's options. */
  plan(plan: Plan): RedisFilterParams;
  /** The stored parameters of an imported filter of this family (`local`: the filter, exceptions unwrapped). */
  paramsOf(
    where: string,
    local: BloomFilter,
    base: BaseParams,
    shards: number | undefined,
  ): RedisFilterParams;
  /** Reads the meta hash's fields of this family on top of the common ones, checked against each other. */
  decode(meta: MetaFields, base: CommonParams, record: KindRecord): RedisFilterParams;
  /** The store that holds a filter of this family. */
  open(context: StoreContext, counter: Counter, clock: WindowClock): Store;
  /** The sub-filters a filter of this family holds, from its storage keys (info). */
  filters(dataKeys: readonly string[]): number;
}

/** What planParams hands a family's plan: the options, the kind, and the fields every kind has. */
export interface Plan {
  readonly where: string;
  readonly o: RedisFilterOptions;
  readonly record: KindRecord;
  readonly base: BaseParams;
}

/** A plan's fields before its family sizes it. */
export type BaseParams = Omit<RedisFilterParams, 'bits' | 'hashes' | 'capacity' | 'fpr'>;

/** The fields every kind has, read and checked by decodeParams before the family's own. */
export type CommonParams = Pick<
  RedisFilterParams,
  'kind' | 'seed' | 'hashes' | 'capacity' | 'fpr' | 'exceptions' | 'duration'
>;

/** One Redis string holds at most 2^32 bits, less the guard's 32 where the family's strings end with it. */
export function checkStringBits(where: string, kind: string, family: StorageFamily, bits: number): void {
  const most = family.guarded ? MAX_STRING_BITS - 8 * GUARD_BYTES : MAX_STRING_BITS;
  if (bits > most) {
    throw new InvalidArgumentError(
      `${where}: a ${kind} filter of ${bits} bits does not fit one Redis string (at most ${family.guarded ? "2^32 − 32 bits: 512 MB, Redis's limit, less the 4-byte guard" : "2^32 bits, Redis's 512 MB limit"}); ${family.tooBig}`,
    );
  }
}

/** The m, k, capacity and rate of a single filter: m and k given, or sized by its layout for capacity and fpr. */
export function sizeSingle({
  where,
  o,
  record,
}: Plan): Pick<RedisFilterParams, 'bits' | 'hashes' | 'capacity' | 'fpr'> {
  const layout = record.layout;
  if (o.bits !== undefined || o.hashes !== undefined) {
    const hashes = checkInteger(where, 'hashes', o.hashes, 1, 64);
    const unit = layout.bitsUnit(hashes);
    const bits = Math.ceil(checkInteger(where, 'bits', o.bits, 1, layout.maxBits) / unit) * unit;
    return { bits, hashes, capacity: null, fpr: null };
  }
  const capacity = checkInteger(where, 'capacity', o.capacity, 1, Number.MAX_SAFE_INTEGER);
  const shape = chooseShape(capacity, o.fpr as number, layout, where);
  return { bits: shape.bits, hashes: shape.hashes, capacity, fpr: o.fpr as number };
}

/** The m, k, capacity and rate of an imported single filter. */
export function sizedOf(local: BloomFilter): Pick<RedisFilterParams, 'bits' | 'hashes' | 'capacity' | 'fpr'> {
  return { bits: local.bits, hashes: local.hashes, capacity: local.capacity ?? null, fpr: local.fpr ?? null };
}

/** Refuses `counterBits` or `shards` given to a single filter of a family that does not take it. */
export function refuseOption({ where, o, record }: Plan, option: 'counterBits' | 'shards'): void {
  if (o[option] === undefined) return;
  throw new InvalidArgumentError(
    option === 'counterBits'
      ? `${where}: counterBits applies to a kind with counters (counting), not ${record.name}`
      : `${where}: shards applies to a kind of the blocked layout, not ${record.name}`,
  );
}

/** The one storage key a filter of a family with one string holds: one filter. */
export const oneFilter = (): number => 1;
