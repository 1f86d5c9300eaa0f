import { allocateBytes, readBytes, writeBytes } from './bytes.js';
import { filterGone } from './errors.js';
import { GUARD_BYTES, guardBytes } from './guard.js';
import type { LocalFilter, SingleLocalFilter } from './local.js';
import type { StoreContext } from './store.js';

/**
 * The one string `bloomkit:{NAME}:data:G` of a filter kept whole in it (counting counters, a cuckoo filter's
 * table): `bytes` of payload, then the 4-byte guard that holds the generation (guard.ts). What a store of such a
 * filter does with the string as a whole: allocate it, read it back checked, write an imported payload.
 */
export class OneString {
  constructor(
    private readonly context: StoreContext,
    /** The payload's bytes (the guard follows them). */
    readonly bytes: number,
  ) {}

  /** The storage keys: the string. */
  async dataKeys(): Promise<string[]> {
    return [this.context.keys.data];
  }

  /** The string zeroed, the guard after it. */
  async allocate(): Promise<void> {
    const { client, keys, generation } = this.context;
    await allocateBytes(client, keys.data, this.bytes, guardBytes(generation));
  }

  /** The payload, read a few MB at a time; FilterNotFoundError when the guard is not the handle's generation. */
  async read(): Promise<Uint8Array> {
    const { client, keys, generation, name } = this.context;
    const bytes = await readBytes(client, keys.data, this.bytes);
    const guard = await client.getrangeBuffer(keys.data, this.bytes, this.bytes + GUARD_BYTES - 1);
    if (!guardBytes(generation).equals(guard)) throw filterGone('RedisBloomFilter.export', name);
    return bytes;
  }

  /** Writes a local filter's payload (`payloadParts`) and the guard after it. */
  async write(filter: LocalFilter): Promise<void> {
    const parts = (filter as SingleLocalFilter).payloadParts();
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    await writeBytes(this.context.client, this.context.keys.data, bytes, guardBytes(this.context.generation));
  }
}
