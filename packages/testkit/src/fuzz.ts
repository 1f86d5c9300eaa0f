import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** What the decoder fuzz needs from a kind: its reader, the library's error class and the CRC-32C. */
export interface DecoderUnderFuzz {
  readonly name: string;
  readonly deserialize: (bytes: Uint8Array) => { serialize(): Uint8Array };
  /** The base class every deliberate error of the library extends (BloomError). */
  readonly errorClass: new (
    ...args: never[]
  ) => Error;
  readonly crc32c: (bytes: Uint8Array) => number;
  /** Valid files of the kind to mutate, made once. */
  readonly samples: () => Uint8Array[];
  /**
   * The first operation after a decode (adds, which may grow a scalable filter) and the bytes the filter then holds:
   * the fuzz checks that a decoded file never makes its first operation allocate more than its size implies (at
   * most 64 times the file plus 1 MiB), the way a hostile 137-byte scalable file once asked for 1.1 TB.
   */
  readonly firstOperation?: (decoded: never) => void;
  readonly heldBytes?: (decoded: never) => number;
}

/** What a decoded file may make its first operation hold: 64 times its size, plus 1 MiB. */
export function impliedBytes(fileBytes: number): number {
  return 64 * fileBytes + 2 ** 20;
}

/** Rewrites the trailing checksum of a whole file, so that what is tested is the structure checks behind it. */
function withChecksum(bytes: Uint8Array, crc32c: (bytes: Uint8Array) => number): Uint8Array {
  if (bytes.length >= 28) {
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(
      bytes.length - 4,
      crc32c(bytes.subarray(0, -4)),
      true,
    );
  }
  return bytes;
}

/**
 * Seeded fast-check fuzzing of a kind's decoder (msgpack-javascript's and LevelDB's corruption tests): mutated
 * bytes (1–8 bytes overwritten), truncated files and random buffers behind a valid header, each with its checksum
 * recomputed so the structure checks are what is tested. Every input must either be refused with the library's
 * own error class, or decode to a filter that serializes back to exactly the same bytes (one filter, one encoding),
 * whose first operation stays within what the file's size implies.
 */
export function describeDecoderFuzz(kind: DecoderUnderFuzz): void {
  describe(`${kind.name} decoder fuzz`, () => {
    const check = (bytes: Uint8Array) => {
      let decoded: { serialize(): Uint8Array } | undefined;
      try {
        decoded = kind.deserialize(bytes);
      } catch (error) {
        expect(error).toBeInstanceOf(kind.errorClass);
        return;
      }
      expect(decoded.serialize()).toEqual(bytes);
      if (kind.firstOperation !== undefined && kind.heldBytes !== undefined) {
        try {
          kind.firstOperation(decoded as never);
        } catch (error) {
          expect(error).toBeInstanceOf(kind.errorClass);
        }
        expect(kind.heldBytes(decoded as never)).toBeLessThanOrEqual(impliedBytes(bytes.length));
      }
    };
    let samples: Uint8Array[] | undefined;
    const sample = (i: number) => {
      samples ??= kind.samples();
      return samples[i % samples.length]!.slice();
    };

    it('overwritten bytes: refused with a BloomError, or decoded to a filter with the same bytes', () => {
      const edit = fc.tuple(fc.nat(), fc.nat(255));
      fc.assert(
        fc.property(fc.nat(), fc.array(edit, { minLength: 1, maxLength: 8 }), (which, edits) => {
          const bytes = sample(which);
          for (const [at, value] of edits) bytes[at % bytes.length] = value;
          check(withChecksum(bytes, kind.crc32c));
        }),
        { numRuns: 3_000, seed: 0x5eed },
      );
    });

    it('truncated files and random bytes behind a valid header are refused or decode exactly', () => {
      fc.assert(
        fc.property(fc.nat(), fc.nat(), (which, cut) => {
          const bytes = sample(which);
          check(withChecksum(bytes.slice(0, cut % (bytes.length + 1)), kind.crc32c));
        }),
        { numRuns: 1_000, seed: 0x5eed },
      );
      fc.assert(
        fc.property(fc.nat(), fc.uint8Array({ maxLength: 400 }), (which, tail) => {
          const bytes = sample(which);
          const random = new Uint8Array(24 + tail.length);
          random.set(bytes.subarray(0, 24));
          random.set(tail, 24);
          check(withChecksum(random, kind.crc32c));
        }),
        { numRuns: 2_000, seed: 0x5eed },
      );
    });
  });
}
