import { GUARD_BYTES, guardBytes } from './guard.js';
import type { RedisFilterParams } from './params.js';

/**
 * What a blocked filter's shard says of itself, so a Redis function called on that shard alone (its slot holds no
 * meta hash: `bk_shard_madd`, functions/bloomkit.lua) knows the filter's shape from the shard's own bytes. Each shard
 * string is its payload, then the guard (guard.ts), then this shape, all big-endian as BITFIELD reads them:
 *
 * | after the guard | size | field |
 * | --- | --- | --- |
 * | 0 | 4 | `BKSH` |
 * | 4 | 4 | seed |
 * | 8 | 1 | hashes k |
 * | 9 | 1 | exceptions: 1 when the filter lists exceptions, else 0 |
 * | 10 | 1 | version of this layout: 1 |
 * | 11 | 1 | 0 |
 * | 12 | 8 | bits m of the whole filter (below 2^53) |
 * | 20 | 4 | blocks per shard |
 * | 24 | 4 | this shard's index |
 *
 * Written with the guard by create and import; never changed afterwards.
 */
export const SHARD_SHAPE_BYTES = 28;

/** The bytes after a blocked shard's payload: its guard, then its shape. */
export function shardTrailer(params: RedisFilterParams, generation: number, shard: number): Buffer {
  const out = Buffer.alloc(GUARD_BYTES + SHARD_SHAPE_BYTES);
  guardBytes(generation).copy(out, 0);
  const at = GUARD_BYTES;
  out.write('BKSH', at, 'latin1');
  out.writeUInt32BE(params.seed, at + 4);
  out.writeUInt8(params.hashes, at + 8);
  out.writeUInt8(params.exceptions ? 1 : 0, at + 9);
  out.writeUInt8(1, at + 10);
  out.writeUInt32BE(Math.floor(params.bits / 2 ** 32), at + 12);
  out.writeUInt32BE(params.bits % 2 ** 32, at + 16);
  out.writeUInt32BE(params.shardBlocks, at + 20);
  out.writeUInt32BE(shard, at + 24);
  return out;
}
