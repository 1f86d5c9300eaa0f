import { CapacityError } from '@bloomkit/cuckoo';
import type { RedisBloomFilter } from '@bloomkit/redis';
import { CapacityWatch } from '../capacity.js';
import { EXIT } from '../errors.js';
import { kindOutgrowsCapacity } from '../filters.js';
import type { Interrupts } from '../interrupts.js';
import { withInput } from '../keys.js';
import { forEachLineAsync, LF, NUL } from '../lines.js';
import { Output } from '../output.js';
import { type RedisTarget, withRedis } from '../redis-target.js';
import type { DedupOptions } from './dedup.js';
import { newFilterSpec } from './dedup.js';

/** Lines sent to Redis per batch. */
const BATCH_LINES = 1000;

/**
 * `dedup --redis redis://host:port/NAME`: the filter is in Redis, shared by every machine deduplicating into it.
 * Lines go to Redis in batches of 1,000 (one atomic test-and-add per key: of several machines seeing one new line
 * at once, exactly one prints it; a cuckoo filter stores no second copy: `addNew`); a batch's new lines are printed
 * in input order before the next batch is sent. The
 * filter is opened by name, or created from --capacity/--fpr (blocked, which spreads over a cluster) or as a
 * scalable filter without a capacity.
 */
/**
 * At a stop signal, how long dedup --redis may take to finish the batch in flight and print what Redis acknowledged
 * before the run is cut off (a server that does not answer).
 */
const DEDUP_STOP_GRACE_MS = 2_000;

export async function runRedisDedup(
  target: RedisTarget,
  options: DedupOptions,
  interrupts: Interrupts,
): Promise<number> {
  return withRedis(
    target,
    `deduplicating against ${target.name}`,
    interrupts,
    async (client, Filter) => {
      const filter = await openOrCreate(Filter, client, target.name, options);
      // A fixed-size filter past its capacity is warned once and ends the run with status 3, as for a file; the
      // count is read once per batch (one HGET). A scalable filter grows and a window forgets: neither has a
      // capacity to pass.
      const fixed = !kindOutgrowsCapacity(filter.kind) && filter.capacity !== null;
      const watch = fixed
        ? new CapacityWatch(filter.capacity!, filter.fpr ?? undefined, target.name)
        : undefined;
      watch?.check(await filter.count());
      const out = new Output();
      const separator = options.nul ? NUL : LF;
      let keys: Uint8Array[] = [];
      let lines: Uint8Array[] = [];
      let seen = 0;
      let written = 0;
      // A cuckoo filter past its room refuses a call whole: its keys then go one at a time, and a key with no room
      // is printed (it is new) though nothing records it, warned once, and the run ends with status 3.
      let full = false;
      const addNew = async (batch: Uint8Array[]): Promise<boolean[]> => {
        try {
          return await filter.addNew(batch);
        } catch (error) {
          if (!(error instanceof CapacityError)) throw error;
        }
        const answers: boolean[] = [];
        for (const key of batch) {
          try {
            answers.push(...(await filter.addNew([key])));
          } catch (error) {
            if (!(error instanceof CapacityError)) throw error;
            if (!full) {
              full = true;
              process.stderr.write(
                `bloomkit: ${target.name}: warning: full: a new line finds no room; lines it cannot record are printed each time they come. Create a larger filter, or use a scalable one\n`,
              );
            }
            answers.push(true);
          }
        }
        return answers;
      };
      // Each batch's new lines are printed as soon as Redis answered it, before the next batch is sent: a line
      // Redis recorded is a line printed, also when a later batch fails or a signal ends the run.
      const flush = async () => {
        for (let at = 0; at < keys.length; at += BATCH_LINES) {
          const fresh = await addNew(keys.slice(at, at + BATCH_LINES));
          for (let j = 0; j < fresh.length; j++) {
            if (fresh[j]) {
              const line = lines[at + j]!;
              out.bytes(line as Buffer, 0, line.length);
              written++;
            }
          }
          out.flush();
        }
        keys = [];
        lines = [];
        if (watch !== undefined && !watch.passed) watch.check(await filter.count());
      };
      for (const file of options.files.length > 0 ? options.files : ['-']) {
        if (interrupts.interrupted) break;
        await withInput(file, (input) =>
          forEachLineAsync(
            input,
            separator,
            (chunk, start, end, next) => {
              const line = Buffer.from(chunk.subarray(start, next));
              lines.push(line);
              keys.push(line.subarray(0, end - start));
              seen++;
            },
            flush,
            interrupts,
          ),
        );
      }
      if (options.stats) {
        process.stderr.write(
          `dedup: ${seen} lines in, ${written} out, ${seen - written} dropped; Redis filter ${target.name} (${filter.kind})\n`,
        );
      }
      return interrupts.exitStatus ?? (watch?.passed || full ? EXIT.overCapacity : EXIT.ok);
    },
    DEDUP_STOP_GRACE_MS,
  );
}

async function openOrCreate(
  Filter: typeof RedisBloomFilter,
  client: Parameters<typeof RedisBloomFilter.open>[0],
  name: string,
  options: DedupOptions,
): Promise<RedisBloomFilter> {
  if (options.capacity === undefined && options.kind === undefined && options.window === undefined) {
    const existing = await Filter.open(client, name).catch(() => undefined);
    if (existing !== undefined) return existing;
  }
  // A filter of that name with other parameters (or another kind) is refused by create, naming the difference.
  const spec = newFilterSpec(options);
  return Filter.create(client, name, {
    kind: spec.kind,
    capacity: spec.capacity!,
    fpr: spec.fpr!,
    ...(spec.seed === undefined ? {} : { seed: spec.seed }),
    ...(spec.duration === undefined ? {} : { duration: spec.duration }),
  });
}
