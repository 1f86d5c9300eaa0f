import { BloomError, type Key } from '@bloomkit/core';
import { batchHashes, batchLineEnds, hashLineBatch, hashRangeInto } from '@bloomkit/core/kit';
import { CapacityWatch } from '../capacity.js';
import { CliError, describeError, EXIT } from '../errors.js';
import { readFilterFile, writeFilterFile } from '../files.js';
import {
  type AnyFilter,
  exceptionsOf,
  type HashingFilter,
  kindName,
  takesHashes,
  withExceptions,
} from '../filters.js';
import { KeyView } from '../key-view.js';
import { type KeySource, visitKeys } from '../keys.js';
import { keyEndOf, LF } from '../lines.js';
import { type WriterOptions, withLockedFile } from '../locked-file.js';
import { Output } from '../output.js';
import { Progress } from '../progress.js';

/** What `add`, `has` and `delete` share: a filter file, a stream of keys, one answer per key. */
export interface KeyedOptions extends KeySource {
  /** Print each key with its answer (`-v`). */
  readonly verbose: boolean;
  readonly quiet: boolean;
}

/** One key-wise operation: its answer for a key, the words for true and false, and whether it changes the file. */
export interface KeyedOperation {
  readonly name: 'add' | 'has' | 'delete' | 'except' | 'unexcept';
  apply(filter: AnyFilter, key: Key): boolean;
  /**
   * The same answer from the key's hash with the filter's seed (`addHash`, `hasHash`), so that keys read from input
   * are hashed where they lie in the read buffer. Used only for a filter that has both (not an exceptions file,
   * whose list needs the key itself).
   */
  applyHash?(filter: HashingFilter, hash: Int32Array): boolean;
  /**
   * The answers of a batch of keys already hashed (key j's words at [4j, 4j + 4) of `hashes`, j < `count`), as
   * {@link applyHash} gives them key after key: `answers[j]` 1 for yes, 0 for no. Lines read from input go this way
   * a block at a time (`addHashes`, `hasHashes`: the batch's slots read together, in WebAssembly where it runs).
   */
  applyHashes?(filter: HashingFilter, hashes: Int32Array, count: number, answers: Uint8Array): void;
  /** The filter the keys go to, from the file's (for `except`: the file's filter with an exception list). */
  prepare?(filter: AnyFilter): AnyFilter;
  readonly yes: string;
  readonly no: string;
  readonly writes: boolean;
  /**
   * What the exit status says: `answers`, as grep's (0 when every answer was yes, 1 when some was no); `success`,
   * 0 whenever the operation succeeded (`add`, whose "no" only means the key was new).
   */
  readonly status: 'answers' | 'success';
  /** Refuses a filter the operation does not apply to, before any key is read. */
  check?(filter: AnyFilter, file: string): void;
}

/**
 * Runs `operation` on every key against the filter in `file`. An operation that changes the file runs as the
 * file's only writer (see withLockedFile) and commits the file atomically at the end, or when a stop signal ends
 * the input early; its `-v` answers are held until that commit, so no key is ever printed as added that the file
 * does not hold. Exit status: 0 on success, and for an operation whose status is its answers, as grep's (0 when
 * every answer was yes, 1 when some answer was no); 128 + the signal's number after a stop signal (what was
 * answered is committed first).
 */
export async function runKeyed(
  file: string,
  operation: KeyedOperation,
  options: KeyedOptions,
  writer: WriterOptions,
): Promise<number> {
  if (!operation.writes) return answerKeys(file, file, operation, options, writer);
  return withLockedFile(file, writer, (target) => answerKeys(target, file, operation, options, writer));
}

async function answerKeys(
  path: string,
  label: string,
  operation: KeyedOperation,
  options: KeyedOptions,
  writer: WriterOptions,
): Promise<number> {
  const read = await readFilterFile(
    path,
    operation.applyHashes === undefined ? 'once' : 'batches',
    writer.interrupts,
  );
  operation.check?.(read, label);
  const filter = operation.prepare?.(read) ?? read;
  const out = new Output(1, { held: operation.writes });
  const progress = new Progress(options.quiet);
  const watch = operation.name === 'add' ? CapacityWatch.of(filter, label) : undefined;
  const view = new KeyView();
  const byHash = takesHashes(filter) ? operation.applyHash : undefined;
  const hash = new Int32Array(4);
  let keys = 0;
  let no = 0;
  const tally = (yes: boolean): boolean => {
    if (!yes) no++;
    if (++keys % 65536 === 0) progress.tick(keys, filter);
    return yes;
  };
  const answer = (key: Key): boolean => tally(operation.apply(filter, key));
  const answerBytes = (chunk: Uint8Array, start: number, end: number): boolean => {
    if (byHash === undefined) return answer(view.of(chunk, start, end));
    hashRangeInto(chunk, start, end, filter.seed, hash);
    return tally(byHash(filter as HashingFilter, hash));
  };
  const yesLine = new TextEncoder().encode(`\t${operation.yes}\n`);
  const noLine = new TextEncoder().encode(`\t${operation.no}\n`);
  const answerLines = takesHashes(filter)
    ? lineAnswerer(operation, filter, { tally, watch, out, verbose: options.verbose, yesLine, noLine })
    : undefined;
  // A refusal of the filter's (a cuckoo filter with no room for a key) names the file, as every other error does.
  const visited = visitKeys(
    options,
    {
      argument(key, text) {
        const yes = answer(key);
        watch?.check(filter.count);
        if (options.verbose) {
          if (typeof key === 'string') out.text(text);
          else out.encoded(key);
          out.encoded(yes ? yesLine : noLine);
        }
      },
      bytes(chunk, start, end) {
        const yes = answerBytes(chunk, start, end);
        watch?.check(filter.count);
        if (options.verbose) {
          out.bytes(chunk, start, end);
          out.encoded(yes ? yesLine : noLine);
        }
      },
      lines: answerLines,
    },
    writer.interrupts,
  );
  await visited.catch((error: unknown) => {
    throw error instanceof BloomError ? new CliError(describeError(error, label)) : error;
  });
  progress.done();
  if (operation.writes) {
    try {
      writeFilterFile(path, filter, label);
    } catch (error) {
      out.discard();
      throw error;
    }
  }
  out.release();
  if (writer.interrupts.exitStatus !== undefined) return writer.interrupts.exitStatus;
  // Past a fixed filter's capacity its rate is no longer the one promised: warned, and exit 3, as `dedup --fixed`.
  if (operation.status === 'success' && watch?.passed === true) return EXIT.overCapacity;
  return operation.status === 'success' || no === 0 ? EXIT.ok : EXIT.absent;
}

/** What a line answerer tallies and prints with (see {@link lineAnswerer}). */
interface LineSink {
  readonly tally: (yes: boolean) => boolean;
  readonly watch: CapacityWatch | undefined;
  readonly out: Output;
  readonly verbose: boolean | undefined;
  readonly yesLine: Uint8Array;
  readonly noLine: Uint8Array;
}

/**
 * The answerer of a block's lines, a batch at a time: hashed where they lie (`hashLineBatch`), answered together
 * by the operation's batch entry, then tallied and printed in order; undefined when the operation has none.
 */
function lineAnswerer(
  operation: KeyedOperation,
  hashing: HashingFilter,
  { tally, watch, out, verbose, yesLine, noLine }: LineSink,
): ((chunk: Buffer, start: number, end: number, separator: number) => void) | undefined {
  const byHashes = operation.applyHashes;
  if (byHashes === undefined) return undefined;
  // One answer per key of a batch: the batch's hash array holds 4 words a key.
  const answers = new Uint8Array(batchHashes().length / 4);
  return (chunk, start, end, separator) => {
    const crlf = separator === LF;
    for (let from = start; from < end; ) {
      const count = hashLineBatch(chunk, from, end, separator, crlf, hashing.seed);
      if (count === 0) throw new Error(`${operation.name}: no separator in [${from}, ${end})`);
      const lineEnds = batchLineEnds();
      const before = hashing.count;
      byHashes(hashing, batchHashes(), count, answers);
      watch?.checkBatch(before, hashing.count);
      let lineStart = from;
      for (let j = 0; j < count; j++) {
        const next = lineEnds[j]!;
        const yes = tally(answers[j] === 1);
        if (verbose) {
          out.bytes(chunk, lineStart, keyEndOf(chunk, lineStart, next - 1, separator));
          out.encoded(yes ? yesLine : noLine);
        }
        lineStart = next;
      }
      from = lineStart;
    }
  };
}

/**
 * `add`: test-and-add; "yes" when the key was (maybe) present already, as `has` would have answered. Exits 0 when
 * the keys were added, new or not, so `set -e` scripts go on, or 3 when a fixed filter now holds more keys than its
 * capacity (warned on stderr; the keys are added); {@link ADD_TESTED} (`add --test`) exits as `has` would have
 * before the add.
 */
export const ADD: KeyedOperation = {
  name: 'add',
  apply: (filter, key) => !filter.add(key),
  applyHash: (filter, hash) => !filter.addHash(hash),
  applyHashes(filter, hashes, count, answers) {
    filter.addHashes(hashes, count, answers);
    for (let j = 0; j < count; j++) answers[j]! ^= 1;
  },
  yes: 'present',
  no: 'added',
  writes: true,
  status: 'success',
  check(filter, file) {
    if (kindName(filter) === 'fuse') {
      throw new CliError(
        `${file}: a fuse filter holds a fixed set and takes no keys; build it again with them (bloomkit build --force)`,
      );
    }
  },
};

/** `add --test`: as {@link ADD}, with grep's exit status: 1 when some key was new, 0 when every key was present. */
export const ADD_TESTED: KeyedOperation = { ...ADD, status: 'answers' };

/** `has`: "yes" when the key may be present (a false positive with the filter's rate), "no" when certainly absent. */
export const HAS: KeyedOperation = {
  name: 'has',
  apply: (filter, key) => filter.has(key),
  applyHash: (filter, hash) => filter.hasHash(hash),
  applyHashes: (filter, hashes, count, answers) => filter.hasHashes(hashes, count, answers),
  yes: 'present',
  no: 'absent',
  writes: false,
  status: 'answers',
};

/** A kind that deletes (counting), by key and by hash. */
interface Deletes {
  delete(key: Key): boolean;
  deleteHash(hash: Int32Array): boolean;
  deleteHashes(hashes: Int32Array, count: number, answers: Uint8Array): number;
}

/**
 * `delete` (counting filters only): "yes" when the key was present and its counters were decremented. Lines read
 * from input are hashed where they lie and deleted a batch at a time (`deleteHashes`), in order.
 */
export const DELETE: KeyedOperation = {
  name: 'delete',
  apply: (filter, key) => (filter as AnyFilter & Deletes).delete(key),
  applyHash: (filter, hash) => (filter as HashingFilter & Deletes).deleteHash(hash),
  applyHashes(filter, hashes, count, answers) {
    (filter as HashingFilter & Deletes).deleteHashes(hashes, count, answers);
  },
  check(filter, file) {
    if (!('delete' in filter) || exceptionsOf(filter)?.deletes === false) {
      throw new CliError(`${file}: delete needs a counting filter; this one is ${kindName(filter)}`);
    }
  },
  yes: 'deleted',
  no: 'absent',
  writes: true,
  status: 'answers',
};

/**
 * `except`: records known false positives. "yes" when the key is now an exception (`has` answers absent for it),
 * "no" when the filter answered absent already (nothing to record) or the key was an exception already. A file
 * without an exception list gets one (it becomes kind 6, the same filter inside).
 */
export const EXCEPT: KeyedOperation = {
  name: 'except',
  apply: (filter, key) => (filter as unknown as ReturnType<typeof withExceptions>).addException(key),
  prepare: (filter) => withExceptions(filter) as unknown as AnyFilter,
  yes: 'excepted',
  no: 'absent',
  writes: true,
  status: 'answers',
};

/** `except --remove`: "yes" when the key was an exception and is no longer (the filter's own answer is back). */
export const UNEXCEPT: KeyedOperation = {
  name: 'unexcept',
  apply: (filter, key) => exceptionsOf(filter)!.removeException(key),
  check(filter, file) {
    if (exceptionsOf(filter) === undefined) {
      throw new CliError(`${file}: has no exception list (a ${kindName(filter)} filter); nothing to remove`);
    }
  },
  yes: 'removed',
  no: 'not-listed',
  writes: true,
  status: 'answers',
};
