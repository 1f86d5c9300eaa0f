import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTables, crc32cJavaScript } from '../../src/checksum.js';
import { instantiateCrc32c } from '../../src/wasm/crc32c-instance.js';

describe('instantiateCrc32c', () => {
  it('gives undefined where WebAssembly is missing, so crc32c stays on the JavaScript loop', () => {
    const saved = globalThis.WebAssembly;
    delete (globalThis as { WebAssembly?: unknown }).WebAssembly;
    try {
      expect(instantiateCrc32c(new Int32Array(4096))).toBeUndefined();
    } finally {
      (globalThis as { WebAssembly?: unknown }).WebAssembly = saved;
    }
  });

  it('gives undefined where compiling is refused (as under a Content-Security-Policy), and a function otherwise', () => {
    const saved = WebAssembly.Module;
    (WebAssembly as { Module: unknown }).Module = () => {
      throw new Error('WebAssembly.Module(): Refused to compile or instantiate WebAssembly module');
    };
    try {
      expect(instantiateCrc32c(new Int32Array(4096))).toBeUndefined();
    } finally {
      (WebAssembly as { Module: unknown }).Module = saved;
    }
    expect(typeof instantiateCrc32c(new Int32Array(4096))).toBe('function');
  });

  it('continues a CRC across calls as the JavaScript loop does', () => {
    const crc = instantiateCrc32c(buildTables())!;
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 3000 }), fc.nat(0xffffffff), (bytes, previous) => {
        expect(crc(bytes, previous)).toBe(crc32cJavaScript(bytes, previous));
      }),
      { numRuns: 300 },
    );
  });
});
