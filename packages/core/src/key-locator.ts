import { InvalidArgumentError } from './errors.js';
import { describe, type Key } from './key.js';
import { murmur3x86_128Into } from './murmur3.js';
import type { Layout } from './params.js';
import { derivePartitionedPositions, derivePositions } from './positions.js';

/**
 * Turns a key into its k bit positions for one filter shape (layout, m, k, seed), into buffers it owns and reuses:
 * the hot path of every filter, with no allocation per key. The Redis variant and the CLI use it the same way.
 */
export class KeyLocator {
  readonly layout: Layout;
  /** m. */
  readonly bits: number;
  /** k. */
  readonly hashes: number;
  readonly seed: number;
  /** s = m / k for the partitioned layout (m is a multiple of k there); m for the standard layout. */
  readonly sliceBits: number;
  /** h1..h4 of the last key located. Overwritten by every call. */
  readonly hash: Uint32Array = new Uint32Array(4);
  /** The k positions of the last key located. Overwritten by every call. */
  readonly positions: Float64Array;

  constructor(layout: Layout, bits: number, hashes: number, seed: number) {
    this.layout = layout;
    this.bits = bits;
    this.hashes = hashes;
    this.seed = seed;
    this.sliceBits = layout === 'partitioned' ? bits / hashes : bits;
    this.positions = new Float64Array(hashes);
  }

  /**
   * Hashes `key` and returns its positions (the shared {@link positions} buffer). `where` names the calling API in
   * the error thrown for a key that is neither a string nor a Uint8Array.
   */
  locate(key: Key, where: string): Float64Array {
    if (typeof key !== 'string' && !(key instanceof Uint8Array)) {
      throw new InvalidArgumentError(`${where}: key must be a string or a Uint8Array, got ${describe(key)}`);
    }
    murmur3x86_128Into(key, this.seed, this.hash);
    this.derive(this.hash, this.positions, 0);
    return this.positions;
  }

  /** Writes the positions for an already computed hash into `out[offset, offset + k)`. */
  derive(hash: Uint32Array, out: Float64Array, offset: number): void {
    if (this.layout === 'partitioned')
      derivePartitionedPositions(hash, this.sliceBits, this.hashes, out, offset);
    else derivePositions(hash, this.bits, this.hashes, out, offset);
  }
}
