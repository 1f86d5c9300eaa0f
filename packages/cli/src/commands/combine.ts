import { CliError, EXIT } from '../errors.js';
import { isStdout, readFilterFile, writeFilterFile, writeFilterToStdout, writeTarget } from '../files.js';
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
  if (isStdout(out)) {
    const result = await combine(operation, undefined, out, inputs, writer.interrupts);
    writeFilterToStdout(result);
    return EXIT.ok;
  }
  return withLockedFile(out, writer, async (target) => {
    const result = await combine(operation, target, out, inputs, writer.interrupts);
    writeFilterFile(target, result, out);
    return EXIT.ok;
  });
}

/**
 * Reads every input and combines them; a stop signal first is a CliError, so nothing is written (the run then
 * exits 128 + its number, OUT as it was). `target`: OUT's resolved path, read under its lock when it is also an
 * input; undefined for stdout.
 */
async function combine(
  operation: 'union' | 'intersect',
  target: string | undefined,
  out: string,
  inputs: readonly string[],
  interrupts: Interrupts,
): Promise<AnyFilter> {
  let result: AnyFilter | undefined;
  for (const file of inputs) {
    const filter = await readFilterFile(
      target !== undefined && writeTarget(file) === target ? target : file,
      'once',
      interrupts,
    );
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
  return result!;
}
