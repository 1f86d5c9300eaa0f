import { FormatError } from './errors.js';

/**
 * Base64 (RFC 4648, with padding) for the JSON form of a filter (json.ts) and the WebAssembly modules carried as
 * text (wasm/*-wasm.ts). Its own module, importing nothing but the errors, so the modules that load at the start
 * (the checksum's and the hash's WebAssembly) import no codec.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ENCODE = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const DECODE = (() => {
  const table = new Int16Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

/** Every character of `text` is of the base64 alphabet or its padding: a FormatError naming the first that is not. */
export function checkBase64Characters(where: string, text: string): void {
  const end = text.length - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128 || DECODE[code]! < 0) throw new FormatError(`${where}: invalid base64 character at ${i}`);
  }
}

/** RFC 4648 base64 with padding. */
export function encodeBase64(bytes: Uint8Array): string {
  const n = bytes.length;
  const out = new Uint8Array(4 * Math.ceil(n / 3));
  let o = 0;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = ENCODE[v >>> 18]!;
    out[o++] = ENCODE[(v >>> 12) & 63]!;
    out[o++] = ENCODE[(v >>> 6) & 63]!;
    out[o++] = ENCODE[v & 63]!;
  }
  if (i < n) {
    const v = (bytes[i]! << 16) | ((i + 1 < n ? bytes[i + 1]! : 0) << 8);
    out[o++] = ENCODE[v >>> 18]!;
    out[o++] = ENCODE[(v >>> 12) & 63]!;
    out[o++] = i + 1 < n ? ENCODE[(v >>> 6) & 63]! : 61;
    out[o++] = 61;
  }
  return new TextDecoder('latin1').decode(out);
}

/** RFC 4648 base64 with padding; anything else (other characters, a bad length or padding) is a FormatError. */
export function decodeBase64(where: string, text: string): Uint8Array<ArrayBuffer> {
  if (text.length % 4 !== 0)
    throw new FormatError(`${where}: base64 length must be a multiple of 4, got ${text.length}`);
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    const c0 = sextet(where, text, i);
    const c1 = sextet(where, text, i + 1);
    const c2 = last && pad === 2 ? 0 : sextet(where, text, i + 2);
    const c3 = last && pad >= 1 ? 0 : sextet(where, text, i + 3);
    if (last && ((pad === 2 && (c1 & 15) !== 0) || (pad === 1 && (c2 & 3) !== 0))) {
      throw new FormatError(`${where}: non-canonical base64 padding`);
    }
    const v = (c0 << 18) | (c1 << 12) | (c2 << 6) | c3;
    out[o++] = v >>> 16;
    if (o < out.length) out[o++] = (v >>> 8) & 255;
    if (o < out.length) out[o++] = v & 255;
  }
  return out;
}

function sextet(where: string, text: string, i: number): number {
  const code = text.charCodeAt(i);
  const value = code < 128 ? DECODE[code]! : -1;
  if (value < 0) throw new FormatError(`${where}: invalid base64 character at ${i}`);
  return value;
}
