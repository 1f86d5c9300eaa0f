import { RedisFilterError } from './errors.js';

/**
 * Offsets packed for a script: little-endian u32, grown as needed. One Buffer per batch and destination, so a
 * batch of 1,000 keys is one argument instead of thousands.
 */
export class PackedOffsets {
  private bytes: Buffer = Buffer.allocUnsafe(1024);
  private used = 0;

  push(offset: number): void {
    if (this.used + 4 > this.bytes.length) {
      const larger = Buffer.allocUnsafe(this.bytes.length * 2);
      this.bytes.copy(larger, 0, 0, this.used);
      this.bytes = larger;
    }
    this.bytes.writeUInt32LE(offset, this.used);
    this.used += 4;
  }

  /** The packed bytes (a view; valid until the next push). */
  buffer(): Buffer {
    return this.bytes.subarray(0, this.used);
  }
}

/** A script's reply of one character per key ('1' or '0') as booleans, checked against the expected count. */
export function answers(reply: unknown, expected: number, where: string): boolean[] {
  if (typeof reply !== 'string' || reply.length !== expected) {
    throw new RedisFilterError(
      `${where}: unexpected reply from Redis: ${JSON.stringify(reply)?.slice(0, 80)}`,
    );
  }
  const out = new Array<boolean>(expected);
  for (let i = 0; i < expected; i++) out[i] = reply.charCodeAt(i) === 49;
  return out;
}

/**
 * Keys packed for a script: each its u32 little-endian byte length and its bytes (a string as UTF-8, a lone
 * surrogate as U+FFFD, the bytes the filter hashes). One Buffer per batch and destination.
 */
export class PackedKeys {
  private bytes: Buffer = Buffer.allocUnsafe(4096);
  private used = 0;

  push(key: string | Uint8Array): void {
    const length = typeof key === 'string' ? Buffer.byteLength(key, 'utf8') : key.length;
    if (this.used + 4 + length > this.bytes.length) {
      const larger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + 4 + length));
      this.bytes.copy(larger, 0, 0, this.used);
      this.bytes = larger;
    }
    this.bytes.writeUInt32LE(length, this.used);
    if (typeof key === 'string') this.bytes.write(key, this.used + 4, 'utf8');
    else this.bytes.set(key, this.used + 4);
    this.used += 4 + length;
  }

  /** The packed bytes (a view; valid until the next push). */
  buffer(): Buffer {
    return this.bytes.subarray(0, this.used);
  }
}
