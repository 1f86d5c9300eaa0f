/**
 * What a filter's store provides to the engine: bits (BitArray) or counters (CounterArray), addressed by slot
 * index. The engine derives positions; the store only marks and reads slots, and copies, combines and
 * serializes itself.
 */
export interface FilterStore<S> {
  /** Number of slots (bits or counters): m. */
  readonly size: number;
  /** Bytes of the serialized payload. */
  readonly byteLength: number;
  /** The payload bytes in order, split over pages (one page up to 512 MiB). Read-only by contract. */
  readonly pages: readonly Uint8Array[];
  /** The counter width recorded in the params block: 0 for bits, else 4, 8 or 16. */
  readonly counterBits: number;
  /**
   * For a bit store of one page (up to 2^32 bits): its bytes, bit i at bit (i & 7) of byte i >>> 3, which the
   * engine's hot loop reads and writes directly. Undefined for counters and for paged bits.
   */
  readonly bitBytes: Uint8Array | undefined;
  /**
   * For a store of 4-bit counters in one page: its bytes, counter i the low (i even) or high (i odd) nibble of byte
   * i >>> 1, which the engine's hot loop reads and increments directly. Undefined for bits and for other counters.
   */
  readonly nibbleBytes: Uint8Array | undefined;
  /** Marks slot `i` (sets the bit, increments the counter); non-zero when the slot was empty before. */
  mark(i: number): number;
  /** True when slot `i` is non-empty. */
  get(i: number): boolean | number;
  /** Number of non-empty slots. */
  setCount(): number;
  /** In place: the store of the union (bits: OR; counters: saturating sum). Same shape required. */
  unionWith(other: S): void;
  /** In place: the store of the intersection (bits: AND; counters: minimum). Same shape required. */
  intersectWith(other: S): void;
  clone(): S;
  clear(): void;
  equals(other: S): boolean;
  /** Copies the payload bytes into `target` from `offset`. */
  copyTo(target: Uint8Array, offset: number): void;
}
