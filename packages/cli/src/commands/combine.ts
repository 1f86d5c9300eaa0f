import { CliError, EXIT } from '../errors.js';
import { readFilterFile, writeFilterFile, writeTarget } from '../files.js';
import { type AnyFilter, kindName } from '../filters.js';
import type { Interrupts } from '../interrupts.js';
import { type WriterOptions, withLockedFile } from '../locked-file.js';

/**
 * `merge OUT IN…` (union) and `intersect OUT IN…`: every input must be the same kind with the same m, k and seed
 * (the library's rule); OUT may be one of the inputs, since it is replaced atomically after all are read. The
 * whole run holds OUT's lock, so a concurrent `add` to OUT waits instead of being overwritten by the result.
 */
export async function runCombine(
  operation: 'union' | 'intersect',
  out: string,
  inputs: readonly string[],
  writer: WriterOptions,
): Promise<number> {
  if (inputs.length === 0)
    throw new CliError(`${operation === 'union' ? 'merge' : 'intersect'}: give at least one input file`);
  return withLockedFile(out, writer, (target) => combine(operation, target, out, inputs, writer.interrupts));
}

/**
 * Reads every input, then writes the result; nothing is written when a stop signal comes first (the run then exits
 * 128 + its number, OUT as it was).
 */
async function combine(
  operation: 'union' | 'intersect',
  target: string,
  out: string,
  inputs: readonly string[],
  interrupts: Interrupts,
): Promise<number> {
  let result: AnyFilter | undefined;
  for (const file of inputs) {
    const filter = await readFilterFile(writeTarget(file) === target ? target : file, 'once', interrupts);
    // A turn of the event loop, so a signal that came while this input was read is seen before the next.
    await new Promise((resolve) => setImmediate(resolve));
    if (interrupts.interrupted) throw new CliError(`${out}: interrupted; nothing was written`);
    if (result === undefined) {
      result = filter;
      continue;
    }
    if (kindName(filter) !== kindName(result)) {
      throw new CliError(
        `${file}: a ${kindName(filter)} filter cannot combine with ${inputs[0]}, a ${kindName(result)} filter`,
      );
    }
    try {
      result = (
        operation === 'union' ? result.union(filter as never) : result.intersect(filter as never)
      ) as AnyFilter;
    } catch (error) {
      throw new CliError(
        `${file}: ${error instanceof Error ? error.message.replace(/^[A-Za-z.]+: /, '') : String(error)}`,
      );
    }
  }
  writeFilterFile(target, result!, out);
  return EXIT.ok;
}
