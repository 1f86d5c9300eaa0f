/**
 * UTF-8 encoding into one buffer reused across calls, so hashing a non-ASCII key allocates nothing once the buffer
 * is large enough. Output is byte-identical to `TextEncoder.encode`: a lone surrogate becomes U+FFFD (EF BF BD).
 */

/** The buffer is kept while it is at most this large; a longer key gets a buffer of its own for that call. */
const RETAINED_LIMIT = 1 << 16;

let scratch = new Uint8Array(256);

/** The encoded bytes: `bytes[0, length)`. `bytes` is shared; it is valid until the next call. */
export interface EncodedUtf8 {
  bytes: Uint8Array;
  length: number;
}

const result: EncodedUtf8 = { bytes: scratch, length: 0 };

/** UTF-8 encodes `text` into the shared buffer (at most 3 bytes per UTF-16 code unit). */
export function encodeUtf8(text: string): EncodedUtf8 {
  const worstCase = text.length * 3;
  let out = scratch;
  if (worstCase > out.length) {
    out = new Uint8Array(Math.max(worstCase, out.length * 2));
    if (out.length <= RETAINED_LIMIT) scratch = out;
  }
  let n = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[n++] = c;
    } else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < length ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
        out[n++] = 0xf0 | (c >> 18);
        out[n++] = 0x80 | ((c >> 12) & 0x3f);
        out[n++] = 0x80 | ((c >> 6) & 0x3f);
        out[n++] = 0x80 | (c & 0x3f);
      } else {
        // A lone surrogate: U+FFFD, as TextEncoder does.
        out[n++] = 0xef;
        out[n++] = 0xbf;
        out[n++] = 0xbd;
      }
    } else {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  result.bytes = out;
  result.length = n;
  return result;
}
