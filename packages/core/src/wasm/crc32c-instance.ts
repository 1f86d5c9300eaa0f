import { decodeBase64 } from '../base64.js';
import { CRC32C_WASM } from './crc32c-wasm.js';

/** Where crc32c.wat's window starts in its memory, and its size: the bytes are copied in this much at a time. */
const WINDOW_AT = 65536;
const WINDOW_BYTES = 131072;

/** A CRC-32C of `bytes` continuing from `previous`, as checksum.ts's crc32c. */
export type Crc32cFunction = (bytes: Uint8Array, previous: number) => number;

/**
 * The WebAssembly CRC-32C of crc32c.wat, instantiated synchronously (the module is 401 bytes, under every
 * browser's limit for synchronous compilation) with `tables` copied into its memory: a function, or undefined where
 * WebAssembly is missing or refused (a Content-Security-Policy without 'wasm-unsafe-eval', an engine without it).
 * The bytes are copied into the module's window 128 KiB at a time: a copy runs at tens of GB/s, the CRC at 1–2.
 */
export function instantiateCrc32c(tables: Int32Array): Crc32cFunction | undefined {
  let exports: WebAssembly.Exports;
  try {
    const module = new WebAssembly.Module(decodeBase64('crc32c.wat', CRC32C_WASM));
    exports = new WebAssembly.Instance(module, {}).exports;
  } catch {
    return undefined;
  }
  const update = exports.update as (crc: number, at: number, length: number) => number;
  const memory = new Uint8Array((exports.memory as WebAssembly.Memory).buffer);
  new Int32Array(memory.buffer, 0, tables.length).set(tables);
  return (bytes, previous) => {
    let crc = previous;
    for (let at = 0; at < bytes.length; at += WINDOW_BYTES) {
      const length = Math.min(WINDOW_BYTES, bytes.length - at);
      memory.set(at === 0 && length === bytes.length ? bytes : bytes.subarray(at, at + length), WINDOW_AT);
      crc = update(crc, WINDOW_AT, length) >>> 0;
    }
    return crc >>> 0;
  };
}
