import { newKernelBytes } from '@bloomkit/core/internal';

/**
 * Bytes after the payload of a table this file allocates (zeros): the three a slot's word needs, and the eight that
 * cuckoo.wat reads from a bucket's first byte when it reads the bucket as one 64-bit word (a kernel table is always
 * one of these; a table read in place has the file's checksum after it, three bytes and more).
 */
const OWN_TAIL = 8;

/**
 * The cuckoo table's storage (docs/FORMAT.md §3.9): `buckets × bucketSize` slots of `fingerprintBits` bits each,
 * packed most significant bit first, as Redis's BITFIELD numbers bits: slot j holds bits [j·f, (j + 1)·f) of the
 * payload, bit i being bit 7 − (i mod 8) of byte ⌊i / 8⌋, and a slot's first bit its most significant. 0 is an
 * empty slot. So a Redis string of the same bytes answers `BITFIELD key GET u<f> #<j>` with slot j.
 *
 * A slot is read as the 32-bit big-endian word at its first byte (f ≤ 24, so it lies within those four bytes
 * whatever its bit offset), one DataView load rather than four byte loads (measured: single-key `has` 5.4 → 6.2 M/s
 * at 10^6 keys); the array therefore keeps three readable bytes after the payload (its own, or the file's checksum
 * when read in place). A write stores that word back whole: the slot's bits changed, every other bit as it was read
 * (so the bytes after the payload, a checksum included, keep their values).
 */
export class SlotTable {
  /** The payload with at least three readable bytes after it (eight in a table this file made). */
  readonly bytes: Uint8Array;
  readonly payloadBytes: number;
  readonly fingerprintBits: number;
  readonly slots: number;
  private readonly mask: number;
  private readonly view: DataView;

  constructor(bytes: Uint8Array, payloadBytes: number, fingerprintBits: number, slots: number) {
    this.bytes = bytes;
    this.payloadBytes = payloadBytes;
    this.fingerprintBits = fingerprintBits;
    this.slots = slots;
    this.mask = 2 ** fingerprintBits - 1;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Bytes the payload of `slots` slots of `bits` bits takes: ⌈slots · bits / 8⌉. */
  static payloadBytesOf(slots: number, bits: number): number {
    return Math.ceil((slots * bits) / 8);
  }

  /**
   * A zeroed table: in a kernel memory from 256 KiB where WebAssembly loads (core's `newKernelBytes`), where the batch
   * lookup runs on cuckoo.wat, else a plain array.
   */
  static empty(slots: number, bits: number): SlotTable {
    const payloadBytes = SlotTable.payloadBytesOf(slots, bits);
    return new SlotTable(newKernelBytes(payloadBytes + OWN_TAIL), payloadBytes, bits, slots);
  }

  /** An independent copy (in a kernel memory as {@link empty} places one, with its tail of zeros). */
  copy(): SlotTable {
    const bytes = newKernelBytes(this.payloadBytes + OWN_TAIL, [this.payload(), new Uint8Array(OWN_TAIL)]);
    return new SlotTable(bytes, this.payloadBytes, this.fingerprintBits, this.slots);
  }

  /** True when both payloads hold the same bytes. */
  sameSlots(other: SlotTable): boolean {
    const a = this.payload();
    const b = other.payload();
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  /**
   * The payload as the file holds it (a view of the table's own bytes). The view holds the table's bytes too: in a
   * kernel memory their place goes back to the arena once the array `newKernelBytes` made is collected, and a
   * subarray alone would not keep it, so parts a caller writes after dropping the filter could see another's.
   */
  payload(): Uint8Array {
    const part: Uint8Array & { owner?: Uint8Array } = this.bytes.subarray(0, this.payloadBytes);
    part.owner = this.bytes;
    return part;
  }

  /** The fingerprint in slot `slot` (0 when empty). */
  get(slot: number): number {
    const bit = slot * this.fingerprintBits;
    // Byte offsets stay below 2^31 (the payload is at most 2 GiB): int32 arithmetic, which V8 indexes fastest.
    const at = Math.floor(bit / 8) | 0;
    const shift = (bit - at * 8) | 0;
    const view = this.view;
    const word = view.getInt32(at);
    return (word >>> (32 - shift - this.fingerprintBits)) & this.mask;
  }

  /** Writes `value` (< 2^f) into slot `slot`: its word read, the slot's bits replaced, the word stored back. */
  set(slot: number, value: number): void {
    const f = this.fingerprintBits;
    const bit = slot * f;
    const at = Math.floor(bit / 8) | 0;
    const end = (bit - at * 8 + f) | 0;
    const shift = 32 - end;
    const view = this.view;
    const word = view.getInt32(at);
    view.setInt32(at, (word & ~(this.mask << shift)) | (value << shift));
  }

  /** The first slot of bucket `bucket` (of `size` slots) holding `fp`, or −1. */
  find(bucket: number, size: number, fp: number): number {
    const f = this.fingerprintBits;
    const first = bucket * size;
    const bit = first * f;
    let at = Math.floor(bit / 8) | 0;
    let shift = (bit - at * 8) | 0;
    const view = this.view;
    for (let j = 0; j < size; j++) {
      const word = view.getInt32(at);
      if (((word >>> (32 - shift - f)) & this.mask) === fp) return first + j;
      shift = (shift + f) | 0;
      at = (at + (shift >>> 3)) | 0;
      shift &= 7;
    }
    return -1;
  }

  /**
   * Whether bucket `first` or bucket `second` (of `size` slots each) holds `fp` (1 ≤ fp < 2^f): both read whole and
   * compared without a branch on the slots, so a batch of lookups pays no mispredicted branch per answer and the
   * two buckets' loads overlap. A slot equal to fp makes (slot ^ fp) − 1 negative, so the sign bit of the OR of
   * those differences is the answer.
   */
  holdsEither(first: number, second: number, size: number, fp: number): boolean {
    return (this.anyEqual(first, size, fp) | this.anyEqual(second, size, fp)) >>> 31 === 1;
  }

  /** The OR over bucket `bucket`'s slots of (slot ^ fp) − 1: negative when one of them holds fp. */
  private anyEqual(bucket: number, size: number, fp: number): number {
    const f = this.fingerprintBits;
    const mask = this.mask;
    const view = this.view;
    const bit = bucket * size * f;
    let at = Math.floor(bit / 8) | 0;
    let shift = (bit - at * 8) | 0;
    let acc = 0;
    for (let j = 0; j < size; j++) {
      acc |= (((view.getInt32(at) >>> (32 - shift - f)) & mask) ^ fp) - 1;
      shift = (shift + f) | 0;
      at = (at + (shift >>> 3)) | 0;
      shift &= 7;
    }
    return acc;
  }

  /** Whether the last {@link scan} saw the fingerprint it was given. */
  sawFingerprint = false;

  /**
   * One pass over bucket `bucket` for an add: returns its first empty slot (−1 when full) and sets
   * {@link sawFingerprint} when a slot holds `fp`.
   */
  scan(bucket: number, size: number, fp: number): number {
    const f = this.fingerprintBits;
    const mask = this.mask;
    const view = this.view;
    const first = bucket * size;
    const bit = first * f;
    let at = Math.floor(bit / 8) | 0;
    let shift = (bit - at * 8) | 0;
    // Without a branch on the slots (their values are what a predictor cannot guess): bit j of `empties` is set when
    // slot j is 0, and `matches` is negative when a slot holds fp ((slot ^ fp) − 1 < 0 only when they are equal).
    let empties = 0;
    let matches = 0;
    for (let j = 0; j < size; j++) {
      const slot = (view.getInt32(at) >>> (32 - shift - f)) & mask;
      empties |= ((slot - 1) >>> 31) << j;
      matches |= (slot ^ fp) - 1;
      shift = (shift + f) | 0;
      at = (at + (shift >>> 3)) | 0;
      shift &= 7;
    }
    this.sawFingerprint = matches < 0;
    // The lowest set bit of `empties` is the first empty slot.
    return empties === 0 ? -1 : first + 31 - Math.clz32(empties & -empties);
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
