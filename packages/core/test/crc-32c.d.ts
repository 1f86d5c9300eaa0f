// Types for the CRC-32C module of `crc-32` (SheetJS), which ships types only for its CRC-32 entry point.
// The module is CommonJS: import its default export (module.exports).
declare module 'crc-32/crc32c.js' {
  const crc32c: {
    /** CRC-32C (Castagnoli) of `data`, continuing from `seed`; a signed 32-bit integer. */
    buf(data: Uint8Array, seed?: number): number;
  };
  export default crc32c;
}
