/**
 * The cuckoo table's storage (docs/FORMAT.md §3.9): `buckets × bucketSize` slots of `fingerprintBits` bits each,
 * packed most significant bit first, as Redis's BITFIELD numbers bits: slot j holds bits [j·f, (j + 1)·f) of the
 * payload, bit i being bit 7 − (i mod 8) of byte ⌊i / 8⌋, and a slot's first bit its most significant. 0 is an
 * empty slot. So a Redis string of the same bytes answers `BITFIELD key GET u<f> #<j>` with slot j.
 *
 * A slot is read as the 32-bit big-endian word at its first byte (f ≤ 24, so it lies within those four bytes
 * whatever its bit offset); the array therefore keeps three readable bytes after the payload (its own, or the
 * file's checksum when read in place), and only the bytes a slot covers are ever written.
 */
export class SlotTable {
  /** The payload with at least three readable bytes after it: `bytes.length ≥ payloadBytes + 3`. */
  readonly bytes: Uint8Array;
  readonly payloadBytes: number;
  readonly fingerprintBits: number;
  readonly slots: number;
  private readonly mask: number;

  constructor(bytes: Uint8Array, payloadBytes: number, fingerprintBits: number, slots: number) {
    this.bytes = bytes;
    this.payloadBytes = payloadBytes;
    this.fingerprintBits = fingerprintBits;
    this.slots = slots;
    this.mask = 2 ** fingerprintBits - 1;
  }

  /** Bytes the payload of `slots` slots of `bits` bits takes: ⌈slots · bits / 8⌉. */
  static payloadBytesOf(slots: number, bits: number): number {
    return Math.ceil((slots * bits) / 8);
  }

  /** A zeroed table. */
  static empty(slots: number, bits: number): SlotTable {
    const payloadBytes = SlotTable.payloadBytesOf(slots, bits);
    return new SlotTable(new Uint8Array(payloadBytes + 3), payloadBytes, bits, slots);
  }

  /** An independent copy. */
  copy(): SlotTable {
    return new SlotTable(this.bytes.slice(), this.payloadBytes, this.fingerprintBits, this.slots);
  }

  /** True when both payloads hold the same bytes. */
  sameSlots(other: SlotTable): boolean {
    const a = this.payload();
    const b = other.payload();
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  /** The payload as the file holds it (a view of the table's own bytes). */
  payload(): Uint8Array {
    return this.bytes.subarray(0, this.payloadBytes);
  }

  /** The fingerprint in slot `slot` (0 when empty). */
  get(slot: number): number {
    const bit = slot * this.fingerprintBits;
    // Byte offsets stay below 2^31 (the payload is at most 2 GiB): int32 arithmetic, which V8 indexes fastest.
    const at = Math.floor(bit / 8) | 0;
    const shift = (bit - at * 8) | 0;
    const b = this.bytes;
    const word = (b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!;
    return (word >>> (32 - shift - this.fingerprintBits)) & this.mask;
  }

  /** Writes `value` (< 2^f) into slot `slot`, touching only the bytes the slot covers. */
  set(slot: number, value: number): void {
    const f = this.fingerprintBits;
    const bit = slot * f;
    const at = Math.floor(bit / 8) | 0;
    const end = (bit - at * 8 + f) | 0;
    const shift = 32 - end;
    const b = this.bytes;
    const word = (b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!;
    const next = (word & ~(this.mask << shift)) | (value << shift);
    b[at] = next >>> 24;
    if (end > 8) b[at + 1] = next >>> 16;
    if (end > 16) b[at + 2] = next >>> 8;
    if (end > 24) b[at + 3] = next;
  }

  /** The first slot of bucket `bucket` (of `size` slots) holding `fp`, or −1. */
  find(bucket: number, size: number, fp: number): number {
    const f = this.fingerprintBits;
    const first = bucket * size;
    const bit = first * f;
    let at = Math.floor(bit / 8) | 0;
    let shift = (bit - at * 8) | 0;
    const b = this.bytes;
    for (let j = 0; j < size; j++) {
      const word = (b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!;
      if (((word >>> (32 - shift - f)) & this.mask) === fp) return first + j;
      shift = (shift + f) | 0;
      at = (at + (shift >>> 3)) | 0;
      shift &= 7;
    }
    return -1;
  }

  /** Whether the last {@link scan} saw the fingerprint it was given. */
  sawFingerprint = false;

  /**
   * One pass over bucket `bucket` for an add: returns its first empty slot (−1 when full) and sets
   * {@link sawFingerprint} when a slot holds `fp`.
   */
  scan(bucket: number, size: number, fp: number): number {
    const f = this.fingerprintBits;
    const first = bucket * size;
    const bit = first * f;
    let at = Math.floor(bit / 8) | 0;
    let shift = (bit - at * 8) | 0;
    const b = this.bytes;
    let empty = -1;
    let seen = false;
    for (let j = 0; j < size; j++) {
      const word = (b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!;
      const slot = (word >>> (32 - shift - f)) & this.mask;
      if (slot === fp) seen = true;
      else if (slot === 0 && empty < 0) empty = first + j;
      shift = (shift + f) | 0;
      at = (at + (shift >>> 3)) | 0;
      shift &= 7;
    }
    this.sawFingerprint = seen;
    return empty;
  }

  /** How many slots of bucket `bucket` hold `fp`. */
  countIn(bucket: number, size: number, fp: number): number {
    let copies = 0;
    const first = bucket * size;
    for (let slot = first; slot < first + size; slot++) if (this.get(slot) === fp) copies++;
    return copies;
  }

  /** Slots holding a fingerprint, and whether the pad bits after the last slot are zero (a reader's checks). */
  census(): { held: number; padClear: boolean } {
    let held = 0;
    for (let slot = 0; slot < this.slots; slot++) if (this.get(slot) !== 0) held++;
    const usedBits = this.slots * this.fingerprintBits;
    const padBits = this.payloadBytes * 8 - usedBits;
    const last = this.bytes[this.payloadBytes - 1] ?? 0;
    return { held, padClear: padBits === 0 || (last & ((1 << padBits) - 1)) === 0 };
  }
}
