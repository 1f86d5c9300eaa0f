import { FormatError, type Key, partitionedLayout } from '@bloomkit/core';
import { keyList } from '@bloomkit/core/kit';
import { WindowBloomFilter } from '@bloomkit/window';
import { allocateBytes, readBytes, writeBytes } from './bytes.js';
import { runScript, script } from './client.js';
import { filterGone, isGoneReply } from './errors.js';
import { metaKey } from './keys.js';
import type { LocalFilter } from './local.js';
import { WINDOW_ADD } from './lua/window-add.js';
import { WINDOW_FRESH } from './lua/window-fresh.js';
import { WINDOW_HAS } from './lua/window-has.js';
import { answers, PackedOffsets } from './packed.js';
import { checkCount } from './params.js';
import { KeyPositions, redisBitOffset } from './positions.js';
import type { Store, StoreContext } from './store.js';
import { clockArguments, clockSkewOf, type WindowClock } from './window-clock.js';

const ADD = script(WINDOW_ADD);
const HAS = script(WINDOW_HAS);
const FRESH = script(WINDOW_FRESH);

/** Keys per script call: a batch's ring work (k + l bit reads, k writes, shifts) stays a few ms of Redis time. */
const BATCH = 1_000;

/**
 * A window filter (kind 7, `@bloomkit/window`) in one cluster slot: the ring's bits in `bloomkit:{NAME}:data:G`,
 * byte for byte the file's payload, and the state of its generations in the meta hash (`newest`, `keys:j`,
 * `start:j`). The client hashes each key and sends its bit in every slice; one script per batch ends the
 * generations whose time is up, looks each key up, sets its bits and ends a generation that fills, atomically, so
 * racing writers neither lose a key at a shift nor accept one twice. `has` is read-only: generations whose time is
 * up count as ended without being ended.
 *
 * A time window follows the server's clock (`TIME`, read in each script), so writers whose own clocks disagree
 * share one time; a caller that opts into its own clock has each reading checked against the server's within a
 * tolerance (window-clock.ts). A time behind the newest generation's start counts as that start, so nothing moves
 * time back and no generation takes more than g keys.
 */
export class WindowStore implements Store {
  private readonly shape;
  private readonly positions: KeyPositions;
  private readonly period: number;
  private readonly sliceBytes: number;

  constructor(
    private readonly context: StoreContext,
    private readonly clock: WindowClock,
  ) {
    const { params } = context;
    const duration = params.duration === 0 ? undefined : params.duration;
    this.shape = WindowBloomFilter.shapeOf(params.capacity!, params.fpr!, { duration });
    const slices = this.shape.hashes + this.shape.ageSlices;
    this.positions = new KeyPositions(partitionedLayout, this.shape.sliceBits * slices, slices, params.seed);
    this.period = this.shape.period;
    this.sliceBytes = this.shape.sliceBits / 8;
  }

  private get slices(): number {
    return this.shape.hashes + this.shape.ageSlices;
  }

  async dataKeys(): Promise<string[]> {
    return [this.context.keys.data];
  }

  /**
   * The window's shape in the meta hash, for a Redis function (functions/bloomkit.lua), which cannot size a window
   * itself: l (`ageSlices`), s (`sliceBits`), g (`generationKeys`) and the period in ms (`period`, 0 for a count
   * window). This package sizes the window from capacity and fpr on every open; these fields are never read here.
   */
  private shapeFields(): string[] {
    return [
      'ageSlices',
      String(this.shape.ageSlices),
      'sliceBits',
      String(this.shape.sliceBits),
      'generationKeys',
      String(this.shape.generation),
      'period',
      String(this.period),
    ];
  }

  async allocate(): Promise<void> {
    const { client, keys, name } = this.context;
    await allocateBytes(client, keys.data, this.sliceBytes * this.slices);
    await client.hset(keys.meta, ...this.shapeFields());
    await runScript(
      client,
      FRESH,
      [keys.meta],
      [this.slices, String(this.period), ...this.clockArgs('RedisBloomFilter.create')],
    ).catch((error: unknown) => {
      throw clockSkewOf('RedisBloomFilter.create', name, error, this.clock.tolerance) ?? error;
    });
  }

  /** The script's clock arguments: the caller's reading and tolerance, or the server's time; none counts for a count window. */
  private clockArgs(where: string): [string, string] {
    return this.period === 0 ? ['0', 'inf'] : clockArguments(where, this.clock);
  }

  addMany(keys: readonly Key[]): Promise<boolean[]> {
    return this.run('RedisBloomFilter.addMany', keys, true);
  }

  hasMany(keys: readonly Key[]): Promise<boolean[]> {
    return this.run('RedisBloomFilter.hasMany', keys, false);
  }

  private async run(where: string, input: readonly Key[], add: boolean): Promise<boolean[]> {
    const list = keyList(where, input);
    const out: boolean[] = [];
    for (let from = 0; from < list.length; from += BATCH) {
      const batch = list.slice(from, from + BATCH);
      const packed = new PackedOffsets();
      for (const key of batch) {
        const positions = this.positions.of(key);
        for (let j = 0; j < this.slices; j++) packed.push(redisBitOffset(positions[j]!));
      }
      const { client, keys, generation, name } = this.context;
      const [now, tolerance] = this.clockArgs(where);
      const args = [
        packed.buffer(),
        this.shape.hashes,
        this.slices,
        this.shape.generation,
        this.sliceBytes,
        String(this.period),
        now,
        generation,
        tolerance,
      ];
      const reply = await runScript(client, add ? ADD : HAS, [keys.meta, keys.data], args).catch(
        (error: unknown) => {
          if (isGoneReply(error)) throw filterGone(where, name, error);
          const skewed = clockSkewOf(where, name, error, this.clock.tolerance);
          if (skewed !== undefined) throw skewed;
          if (error instanceof Error && error.message.startsWith('BLOOMKIT_BADMETA')) {
            const field = error.message.split(' ')[1];
            throw new FormatError(`${where}: meta field ${field} of ${metaKey(name)} is not valid`);
          }
          throw error;
        },
      );
      out.push(...answers(reply, batch.length, where));
    }
    return out;
  }

  async toLocal(count: number): Promise<LocalFilter> {
    const { client, keys, params, name } = this.context;
    const where = 'RedisBloomFilter.export';
    const fields = ['newest'];
    for (let j = 0; j < this.slices; j++) fields.push(`keys:${j}`, `start:${j}`);
    const values = (await client.hmget(keys.meta, ...fields)) as (string | null)[];
    const newest = checkCount(where, name, 'newest', values[0]);
    const held: number[] = [];
    const starts: number[] = [];
    for (let j = 0; j < this.slices; j++) {
      held.push(checkCount(where, name, `keys:${j}`, values[1 + 2 * j]));
      const start = Number(values[2 + 2 * j]);
      if (values[2 + 2 * j] === null || !Number.isFinite(start)) {
        throw new FormatError(`${where}: meta field start:${j} of ${metaKey(name)} must be a finite number`);
      }
      starts.push(start);
    }
    const bytes = await readBytes(client, keys.data, this.sliceBytes * this.slices);
    return WindowBloomFilter.fromRing(
      {
        window: params.capacity!,
        fpr: params.fpr!,
        seed: params.seed,
        duration: params.duration === 0 ? undefined : params.duration,
      },
      { newest, keys: held, starts, count, bytes },
      { clock: this.clock.own ?? Date.now },
    ) as unknown as LocalFilter;
  }

  async write(filter: LocalFilter): Promise<void> {
    const { client, keys } = this.context;
    const ring = (filter as unknown as WindowBloomFilter).ring();
    await writeBytes(client, keys.data, ring.bytes);
    await client.hset(keys.meta, ...this.stateFields(ring), ...this.shapeFields());
  }

  /** The meta hash's fields of a ring's state; times in %.17g's precision (JavaScript's shortest exact form). */
  private stateFields(ring: {
    newest: number;
    keys: readonly number[];
    starts: readonly number[];
  }): string[] {
    const fields = ['newest', String(ring.newest)];
    for (let j = 0; j < this.slices; j++)
      fields.push(`keys:${j}`, String(ring.keys[j]), `start:${j}`, String(ring.starts[j]));
    return fields;
  }
}
