import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitAt } from './parts.js';

/**
 * How deep the fuzz goes and from where: `BLOOMKIT_FUZZ_RUNS` hostile inputs per kind (default 10^5 in CI, where
 * `CI` is set, 6,000 elsewhere so a local run stays quick) and `BLOOMKIT_FUZZ_SEED` (default a fresh random seed
 * each run). The seed is printed, so a failure in CI replays with `BLOOMKIT_FUZZ_SEED=<seed> pnpm test`.
 */
export const FUZZ: { readonly runs: number; readonly seed: number } = (() => {
  const runs = Number(process.env.BLOOMKIT_FUZZ_RUNS ?? (process.env.CI ? 100_000 : 6_000));
  const seed = Number(process.env.BLOOMKIT_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
  if (!Number.isSafeInteger(runs) || runs < 1)
    throw new Error(`BLOOMKIT_FUZZ_RUNS must be a positive integer`);
  if (!Number.isSafeInteger(seed)) throw new Error(`BLOOMKIT_FUZZ_SEED must be an integer`);
  return { runs, seed };
})();

/** Prints the fuzz's seed and depth once per test file, as the replay line. */
export function announceFuzz(what: string, runs: number = FUZZ.runs): void {
  console.log(`fuzz ${what}: ${runs} inputs, seed ${FUZZ.seed} (replay: BLOOMKIT_FUZZ_SEED=${FUZZ.seed})`);
}

/**
 * Lets the event loop run once. A test that works synchronously for long (a 4 GiB checksum, a child process run
 * with spawnSync) calls it between steps: vitest times out its own messages to a worker that does not answer for
 * 60 s and fails the run, although every test passed.
 */
export function yieldToRunner(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs per slice of {@link assertInSlices}. */
const SLICE_RUNS = 1_000;

/**
 * `fc.assert` of a synchronous property in slices of 1,000 runs, yielding to the event loop between them. A test
 * that keeps its worker busy for over a minute (10^5 decodes on a loaded machine) starves the runner's own
 * messages to that worker, which vitest then reports as a failed run ("Timeout calling onTaskUpdate") although
 * every test passed. Slice i runs from seed + i, so a failure replays from the printed seed.
 */
export async function assertInSlices<Ts extends [unknown, ...unknown[]]>(
  property: fc.IProperty<Ts>,
  options: { readonly numRuns: number; readonly seed: number; readonly sliceRuns?: number },
): Promise<void> {
  // A property whose every run is heavy gives a smaller slice (`sliceRuns`), so that one slice stays well under 10 s.
  const sliceRuns = options.sliceRuns ?? SLICE_RUNS;
  for (let done = 0, slice = 0; done < options.numRuns; done += sliceRuns, slice++) {
    fc.assert(property, {
      numRuns: Math.min(sliceRuns, options.numRuns - done),
      seed: options.seed + slice,
    });
    await yieldToRunner();
  }
}

/**
 * The runs of a property that sets its own (`numRuns: depth(300)`): `runs`, or a quarter of it (at least 10) in
 * `pnpm test:quick` (BLOOMKIT_QUICK=1), the loop that runs every property at a small depth.
 */
export function depth(runs: number): number {
  return process.env.BLOOMKIT_QUICK === '1' ? Math.max(10, Math.round(runs / 4)) : runs;
}

/** A tenth of the depth (at least 100): for fuzz whose every input costs a file write or Redis round trips. */
export const TENTH_RUNS: number = Math.max(100, Math.round(FUZZ.runs / 10));

/** What the decoder fuzz needs from a kind: its reader, the library's error class and the CRC-32C. */
export interface DecoderUnderFuzz {
  readonly name: string;
  /** The kind's `deserialize`, of one array or of parts (ByteSource). */
  readonly deserialize: (bytes: Uint8Array | Uint8Array[]) => { serialize(): Uint8Array };
  /** The kind's `fromJSON` and the `toJSON` of its filters, for the JSON form's fuzz. */
  readonly fromJSON?: (json: unknown) => { serialize(): Uint8Array };
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
    announceFuzz(kind.name);
    const fuzz = fuzzContext(kind);
    byteFuzz(kind, fuzz);
    formFuzz(kind, fuzz);
  });
}

/** What a kind's fuzz tests share: the runs of each share, and the check every input must pass. */
interface FuzzContext {
  options(share: number): { numRuns: number; seed: number };
  check(bytes: Uint8Array, splits?: readonly number[]): void;
  sample(i: number): Uint8Array;
}

function fuzzContext(kind: DecoderUnderFuzz): FuzzContext {
  /** Shares of the runs: overwritten bytes, cuts, random payloads, parts, JSON forms. */
  const runs = (share: number) => Math.max(1, Math.round(FUZZ.runs * share));
  const options = (share: number) => ({ numRuns: runs(share), seed: FUZZ.seed });
  const check = (bytes: Uint8Array, splits: readonly number[] = []) => {
    let decoded: { serialize(): Uint8Array } | undefined;
    try {
      decoded = kind.deserialize(splits.length === 0 ? bytes : splitAt(bytes, splits));
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

  return { options, check, sample };
}

/** Overwritten bytes, and the same bytes as parts split anywhere. */
function byteFuzz(kind: DecoderUnderFuzz, { options, check, sample }: FuzzContext): void {
  it('overwritten bytes: refused with a BloomError, or decoded to a filter with the same bytes', async () => {
    const edit = fc.tuple(fc.nat(), fc.nat(255));
    await assertInSlices(
      fc.property(fc.nat(), fc.array(edit, { minLength: 1, maxLength: 8 }), (which, edits) => {
        const bytes = sample(which);
        for (const [at, value] of edits) bytes[at % bytes.length] = value;
        check(withChecksum(bytes, kind.crc32c));
      }),
      options(0.4),
    );
  });

  it('the same bytes as parts, split anywhere: refused or decoded exactly, as one array is', async () => {
    const edit = fc.tuple(fc.nat(), fc.nat(255));
    await assertInSlices(
      fc.property(
        fc.nat(),
        fc.array(edit, { maxLength: 4 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }),
        (which, edits, cuts) => {
          const bytes = sample(which);
          for (const [at, value] of edits) bytes[at % bytes.length] = value;
          check(withChecksum(bytes, kind.crc32c), cuts);
        },
      ),
      options(0.15),
    );
  });
}

/** JSON forms with hostile fields, truncated files, random bytes behind a valid header. */
function formFuzz(kind: DecoderUnderFuzz, { options, check, sample }: FuzzContext): void {
  it('JSON forms with hostile fields: refused with a BloomError, or decoded to a filter that serializes', async () => {
    if (kind.fromJSON === undefined) return;
    const fromJSON = kind.fromJSON;
    const hostile = fc.oneof(
      fc.constantFrom(-1, 0, 1, 2, 1e300, Number.NaN, null, true, '', 'bloomkit', 'standard', [], {}),
      fc.string(),
      fc.base64String(),
      fc.integer(),
    );
    await assertInSlices(
      fc.property(
        fc.nat(),
        fc.constantFrom('format', 'version', 'kind', 'base64', 'extra'),
        hostile,
        fc.boolean(),
        (which, field, value, asText) => {
          const bytes = sample(which);
          const json = JSON.parse(JSON.stringify(kind.deserialize(bytes))) as Record<string, unknown>;
          json[field] = value;
          let decoded: { serialize(): Uint8Array } | undefined;
          try {
            decoded = fromJSON(asText ? JSON.stringify(json) : json);
          } catch (error) {
            expect(error).toBeInstanceOf(kind.errorClass);
            return;
          }
          decoded.serialize();
        },
      ),
      options(0.1),
    );
  });

  it('truncated files and random bytes behind a valid header are refused or decode exactly', async () => {
    await assertInSlices(
      fc.property(fc.nat(), fc.nat(), (which, cut) => {
        const bytes = sample(which);
        check(withChecksum(bytes.slice(0, cut % (bytes.length + 1)), kind.crc32c));
      }),
      options(0.1),
    );
    await assertInSlices(
      fc.property(fc.nat(), fc.uint8Array({ maxLength: 400 }), (which, tail) => {
        const bytes = sample(which);
        const random = new Uint8Array(24 + tail.length);
        random.set(bytes.subarray(0, 24));
        random.set(tail, 24);
        check(withChecksum(random, kind.crc32c));
      }),
      options(0.25),
    );
  });
}
