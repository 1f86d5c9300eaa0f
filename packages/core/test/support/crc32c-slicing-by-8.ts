/**
 * The slicing-by-8 CRC-32C that src/checksum.ts used before slicing-by-16, kept as an oracle: the same results,
 * another table layout and another loop (two words per step, and a byte-assembled path for unaligned words).
 */

const POLYNOMIAL = 0x82f63b78;

/** Table k (k = 0..7) at [k·256, (k + 1)·256): table 0 is the byte-at-a-time table, table k advances k more bytes. */
const TABLES: Int32Array = buildTables();

function buildTables(): Int32Array {
  const tables = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let bit = 0; bit < 8; bit++) c = c & 1 ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
    tables[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = tables[n]!;
    for (let k = 1; k < 8; k++) {
      c = tables[c & 0xff]! ^ (c >>> 8);
      tables[k * 256 + n] = c;
    }
  }
  return tables;
}

/** Typed arrays use the platform's byte order; reading words directly needs it to be little-endian. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export function crc32cSlicingBy8(bytes: Uint8Array, previous = 0): number {
  const t = TABLES;
  let crc = ~previous;
  const length = bytes.length;
  let i = 0;
  // Byte at a time up to a 4-byte boundary, then two 32-bit words per step through an Int32Array view of the
  // aligned middle (two loads instead of eight), then the tail.
  while (i < length && (bytes.byteOffset + i) % 4 !== 0) crc = t[(crc ^ bytes[i++]!) & 0xff]! ^ (crc >>> 8);
  const words = (length - i) >>> 3;
  if (LITTLE_ENDIAN && words > 0) {
    const view = new Int32Array(bytes.buffer, bytes.byteOffset + i, words * 2);
    for (let w = 0; w < view.length; w += 2) {
      const low = crc ^ view[w]!;
      const high = view[w + 1]!;
      crc =
        t[1792 + (low & 0xff)]! ^
        t[1536 + ((low >>> 8) & 0xff)]! ^
        t[1280 + ((low >>> 16) & 0xff)]! ^
        t[1024 + (low >>> 24)]! ^
        t[768 + (high & 0xff)]! ^
        t[512 + ((high >>> 8) & 0xff)]! ^
        t[256 + ((high >>> 16) & 0xff)]! ^
        t[high >>> 24]!;
    }
    i += words * 8;
  }
  for (const end = length - 7; i < end; i += 8) {
    const low = crc ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    const high = bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24);
    crc =
      t[1792 + (low & 0xff)]! ^
      t[1536 + ((low >>> 8) & 0xff)]! ^
      t[1280 + ((low >>> 16) & 0xff)]! ^
      t[1024 + (low >>> 24)]! ^
      t[768 + (high & 0xff)]! ^
      t[512 + ((high >>> 8) & 0xff)]! ^
      t[256 + ((high >>> 16) & 0xff)]! ^
      t[high >>> 24]!;
  }
  for (; i < length; i++) crc = t[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}
