import { existsSync } from 'node:fs';
import { CliError, EXIT } from '../errors.js';
import { writeFilterFile } from '../files.js';
import { createFilter, type FilterSpec } from '../filters.js';

/** `create FILE`: a new empty filter, written atomically; an existing file is kept unless `--force`. */
export function runCreate(file: string, spec: FilterSpec, force: boolean): number {
  if (!force && existsSync(file)) throw new CliError(`${file}: already exists (use --force to replace it)`);
  writeFilterFile(file, createFilter(spec));
  return EXIT.ok;
}
