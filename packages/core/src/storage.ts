/**
 * What a filter's storage provides so that the shared filter code can combine, copy and serialize it without
 * knowing whether it holds bits or counters. Implemented by BitArray and CounterArray.
 */
export interface FilterStorage<S> {
  /** Bytes of the serialized payload. */
  readonly byteLength: number;
  /** In place: the storage of the union (bits: OR; counters: saturating sum). Same shape required. */
  unionWith(other: S): void;
  /** In place: the storage of the intersection (bits: AND; counters: minimum). Same shape required. */
  intersectWith(other: S): void;
  clone(): S;
  clear(): void;
  equals(other: S): boolean;
  /** Copies the payload bytes into `target` from `offset`. */
  copyTo(target: Uint8Array, offset: number): void;
}
