import { CliError, EXIT } from '../errors.js';
import { readFilterFile, writeFilterFile } from '../files.js';
import { type AnyFilter, kindName } from '../filters.js';

/**
 * `merge OUT IN…` (union) and `intersect OUT IN…`: every input must be the same kind with the same m, k and seed
 * (the library's rule); OUT may be one of the inputs, since it is replaced atomically after all are read.
 */
export function runCombine(operation: 'union' | 'intersect', out: string, inputs: readonly string[]): number {
  if (inputs.length === 0)
    throw new CliError(`${operation === 'union' ? 'merge' : 'intersect'}: give at least one input file`);
  let result: AnyFilter | undefined;
  for (const file of inputs) {
    const filter = readFilterFile(file);
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
  writeFilterFile(out, result!);
  return EXIT.ok;
}
