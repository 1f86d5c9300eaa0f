import CRC32C from 'crc-32/crc32c.js';

/**
 * CRC-32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78; init and final XOR 0xFFFFFFFF), the checksum
 * of iSCSI, ext4, RocksDB and LevelDB, here from the `crc-32` package. Check value: crc32c("123456789") =
 * 0xE3069283. Returns an unsigned 32-bit integer; pass a previous result as `previous` to continue over chunks.
 */
export function crc32c(bytes: Uint8Array, previous = 0): number {
  return CRC32C.buf(bytes, previous | 0) >>> 0;
}
