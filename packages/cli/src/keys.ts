import type { Key } from '@bloomkit/core';
import { keyOf } from './arguments.js';
import { CliError } from './errors.js';
import { type Input, openInput } from './input.js';
import { type Interrupts, NEVER_INTERRUPTED } from './interrupts.js';
import { forEachLine, LF, LineTooLongError, NUL } from './lines.js';

/** Where the keys of `add`, `has` and `delete` come from. */
export interface KeySource {
  /** Keys given on the command line. */
  readonly keys: readonly string[];
  /** Files of keys, one per line (`-` is stdin). */
  readonly from: readonly string[];
  /** NUL-separated keys instead of lines (`-0`). */
  readonly nul: boolean;
}

/**
 * Receives each key: one from the command line (the bytes the user typed; see arguments.ts), or the bytes
 * `chunk[start, end)` of a line.
 */
export interface KeyVisitor {
  argument(key: Key, text: string): void;
  bytes(chunk: Buffer, start: number, end: number): void;
  /**
   * When given, the complete lines of each block read go here at once instead of to `bytes`: `chunk[start, end)`
   * holds whole lines, each ending with `separator` (a key is its line without it, and for LF lines without a CR
   * before it). The input's last line, when it has no separator, still goes to `bytes`.
   */
  readonly lines?: ((chunk: Buffer, start: number, end: number, separator: number) => void) | undefined;
}

/**
 * Visits the keys of the command line, then those of each `--from` file; with neither, the lines of stdin. Input
 * streams through one buffer, so any number of keys passes in constant memory. Stops early on a stop signal.
 */
export async function visitKeys(
  source: KeySource,
  visitor: KeyVisitor,
  interrupts: Interrupts = NEVER_INTERRUPTED,
): Promise<void> {
  const typed = source.keys.map(keyOf);
  for (const [i, key] of typed.entries()) visitor.argument(key, source.keys[i]!);
  const files = source.from.length > 0 ? source.from : source.keys.length > 0 ? [] : ['-'];
  const separator = source.nul ? NUL : LF;
  const lines = visitor.lines;
  for (const file of files) {
    if (interrupts.interrupted) return;
    await withInput(file, (fd) =>
      forEachLine(
        fd,
        separator,
        (chunk, start, end) => visitor.bytes(chunk, start, end),
        interrupts,
        undefined,
        lines === undefined ? undefined : (chunk, start, end) => lines(chunk, start, end, separator),
      ),
    );
  }
}

/**
 * Runs `use` on the input `file` (`-` is stdin), open until `use` settles. A line too long to read whole is
 * reported with the input's name.
 */
export async function withInput(file: string, use: (input: Input) => Promise<void>): Promise<void> {
  const input = openInput(file);
  try {
    await use(input);
  } catch (error) {
    if (error instanceof LineTooLongError)
      throw new CliError(`${file === '-' ? 'stdin' : file}: ${error.message}`);
    throw error;
  } finally {
    input.close();
  }
}
