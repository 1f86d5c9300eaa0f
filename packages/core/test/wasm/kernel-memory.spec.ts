import { describe, expect, it } from 'vitest';
import { blockedKernel } from '../../src/wasm/blocked-instance.js';
import {
  checkMemoryMap,
  instantiateOver,
  KERNEL_FROM_BYTES,
  KERNEL_KEYS,
  kernelBytes,
  newKernelBytes,
} from '../../src/wasm/kernel-memory.js';
import { blockedModule, kernelsCompile, strideModule } from '../../src/wasm/kernel-modules.js';
import { strideKernel } from '../../src/wasm/stride-instance.js';
import { inKernelMemory } from '../support/kernel-place.js';

describe('kernelBytes: bits in a kernel memory', () => {
  it('gives zeroed bytes, 64-byte aligned past the scratch, from 256 KiB to 512 MiB, nothing outside', () => {
    const bytes = kernelBytes(KERNEL_FROM_BYTES)!;
    expect(bytes.length).toBe(KERNEL_FROM_BYTES);
    expect(inKernelMemory(bytes)).toBe(true);
    expect(bytes.every((b) => b === 0)).toBe(true);
    expect(kernelBytes(KERNEL_FROM_BYTES - 1)).toBeUndefined();
    expect(kernelBytes(2 ** 29 + 1)).toBeUndefined();
    expect(blockedKernel(bytes)).toBeDefined();
    expect(blockedKernel(new Uint8Array(KERNEL_FROM_BYTES))).toBeUndefined();
  });

  it('gives each filter a place of its own: writing one never shows in another', () => {
    const a = kernelBytes(KERNEL_FROM_BYTES)!;
    const b = kernelBytes(KERNEL_FROM_BYTES)!;
    a.fill(1);
    expect(b.every((byte) => byte === 0)).toBe(true);
    b.fill(2);
    expect(a.every((byte) => byte === 1)).toBe(true);
  });
});

describe('the kernel modules', () => {
  it('both compile here, once each', () => {
    expect(kernelsCompile()).toBe(true);
    expect(blockedModule()).toBeInstanceOf(WebAssembly.Module);
    expect(blockedModule()).toBe(blockedModule());
    expect(strideModule()).toBeInstanceOf(WebAssembly.Module);
    expect(strideModule()).toBe(strideModule());
  });
});

describe('the memory map', () => {
  it("is every kernel module's own export, the same as the loader's", () => {
    const memory = new WebAssembly.Memory({ initial: 2 });
    for (const module of [blockedModule()!, strideModule()!]) {
      const { exports } = new WebAssembly.Instance(module, { filter: { memory } });
      expect(() => checkMemoryMap(exports)).not.toThrow();
      expect((exports.keysMax as WebAssembly.Global).value).toBe(KERNEL_KEYS);
    }
  });

  it('refuses a module whose map differs, or that exports none, naming the global', () => {
    const global = (value: number) => new WebAssembly.Global({ value: 'i32' }, value);
    const good = {
      hashesAt: global(0),
      answersAt: global(16384),
      keysMax: global(KERNEL_KEYS),
      scratchBytes: global(65536),
    };
    expect(() => checkMemoryMap(good)).not.toThrow();
    expect(() => checkMemoryMap({ ...good, answersAt: global(16400) })).toThrow(
      /answersAt is 16400, this loader's is 16384/,
    );
    expect(() => checkMemoryMap({ ...good, scratchBytes: undefined as never })).toThrow(
      /scratchBytes is undefined/,
    );
  });
});

describe('instantiateOver', () => {
  it('makes a kernel over bits kernelBytes made, sharing their memory, and nothing over other bytes', () => {
    const bytes = kernelBytes(KERNEL_FROM_BYTES)!;
    const kernel = instantiateOver(blockedModule()!, bytes, 100)!;
    expect(kernel.keysPerCall).toBe(100);
    expect(kernel.hashes.buffer).toBe(bytes.buffer);
    expect(kernel.hashes.length).toBe(KERNEL_KEYS * 4);
    expect(kernel.answers.buffer).toBe(bytes.buffer);
    expect(kernel.answers.length).toBe(KERNEL_KEYS);
    expect(typeof kernel.probe).toBe('function');
    expect(typeof kernel.mark).toBe('function');
    // A plain array, and a view of the right memory at another offset, have no kernel.
    expect(instantiateOver(blockedModule()!, new Uint8Array(KERNEL_FROM_BYTES), 100)).toBeUndefined();
    expect(instantiateOver(blockedModule()!, bytes.subarray(64), 100)).toBeUndefined();
    expect(strideKernel(bytes.subarray(64), 7)).toBeUndefined();
  });
});

describe('newKernelBytes: kernel bytes where they can be had, else a plain array', () => {
  it('gives zeros or a copy of the contents (one array or parts), in a kernel memory from 256 KiB', () => {
    const contents = Uint8Array.from({ length: KERNEL_FROM_BYTES }, (_, i) => (i * 7) & 255);
    const parts = [contents.subarray(0, 1000), contents.subarray(1000)];
    for (const source of [contents, parts]) {
      const bytes = newKernelBytes(KERNEL_FROM_BYTES, source);
      expect(inKernelMemory(bytes)).toBe(true);
      // Byte for byte (toEqual walks a 256 KiB array element by element, far slower).
      expect(Buffer.compare(bytes, contents)).toBe(0);
      bytes[0] = 99;
      expect(contents[0]).toBe(0);
    }
    expect(newKernelBytes(KERNEL_FROM_BYTES).every((b) => b === 0)).toBe(true);
    const small = newKernelBytes(1000, contents.subarray(0, 1000));
    expect([small.byteOffset, small.length, small.buffer.byteLength]).toEqual([0, 1000, 1000]);
    expect(small).toEqual(contents.subarray(0, 1000));
    expect(newKernelBytes(10)).toEqual(new Uint8Array(10));
  });

  it("has core's kernel modules compile here", () => {
    expect(kernelsCompile()).toBe(true);
  });
});
