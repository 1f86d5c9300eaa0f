import { existsSync } from 'node:fs';
import { CliError, EXIT } from '../errors.js';
import { writeFilterFile } from '../files.js';
import { createFilter, type FilterSpec } from '../filters.js';
import { type WriterOptions, withLockedFile } from '../locked-file.js';
import { BUILD_KINDS } from './build.js';

/**
 * `create FILE`: a new empty filter, written atomically; an existing file is kept unless `--force`. The check and
 * the write happen under the file's lock, so of two `create` runs without `--force` exactly one succeeds.
 */
export async function runCreate(
  file: string,
  spec: FilterSpec,
  force: boolean,
  writer: WriterOptions,
): Promise<number> {
  if (BUILD_KINDS.some((kind) => kind.startsWith(spec.kind))) {
    throw new CliError(
      `${file}: a ${spec.kind} filter holds a fixed set and is built from all its keys at once: bloomkit build ${file} --kind fuse8 --from KEYS (or fuse16)`,
    );
  }
  const filter = createFilter(spec);
  return withLockedFile(file, writer, (target) => {
    if (!force && existsSync(target))
      throw new CliError(`${file}: already exists (use --force to replace it)`);
    writeFilterFile(target, filter, file);
    return EXIT.ok;
  });
}
