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
    const module = new WebAssembly.Module(decodeBase64(CRC32C_WASM));
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

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 (RFC 4648, padded) to bytes, without `atob` or `Buffer`, so it runs in any JavaScript. */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let bits = 0;
  let count = 0;
  let at = 0;
  for (let i = 0; i < text.length - padding; i++) {
    bits = (bits << 6) | BASE64.indexOf(text[i]!);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out[at++] = (bits >>> count) & 0xff;
    }
  }
  return out;
}
