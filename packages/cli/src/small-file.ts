import { constants, openSync } from 'node:fs';
import { CliError, describeError } from './errors.js';
import { inputOf } from './input.js';
import { type Interrupts, NEVER_INTERRUPTED, untilStopped } from './interrupts.js';

/**
 * The bytes of a small file that option `option` names (a password, a TLS certificate or key), read through the
 * same {@link inputOf} as keys: a regular file, a FIFO or the shell's `<(...)` all work; the open never blocks (a
 * FIFO waits for its writer in the event loop, where a stop signal ends the run); and no more than `limit` bytes are
 * ever held, so `/dev/zero` or a stray multi-gigabyte file is refused at once instead of filling memory. Every
 * failure is a CliError that names the option and the file.
 */
export async function readSmallFile(
  path: string,
  option: string,
  limit: number,
  interrupts: Interrupts = NEVER_INTERRUPTED,
): Promise<Buffer> {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new CliError(`${option}: ${describeError(error, path)}`);
  }
  const input = inputOf(fd, true);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const n = await untilStopped(input.read(chunk, 0, CHUNK_BYTES), interrupts, `${option}: ${path}`).catch(
        (error: unknown) => {
          throw error instanceof CliError ? error : new CliError(`${option}: ${describeError(error, path)}`);
        },
      );
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      length += n;
      if (length > limit)
        throw new CliError(`${option}: ${path} is longer than ${limit} bytes, the most read`);
    }
  } finally {
    input.close();
  }
  return Buffer.concat(chunks, length);
}

/** Bytes asked for at a time. */
const CHUNK_BYTES = 64 * 1024;
