import { instanceOver, type KernelInstance } from './kernel-memory.js';
import { compileKernel } from './kernel-modules.js';

/**
 * A kind's own kernel module (a `NAME-wasm.ts` that scripts/build-wasm.mjs wrote: the window's ring, the cuckoo's
 * and the fuse filter's lookups), compiled on first use and kept (null where it does not compile, then never tried
 * again), and instantiated over the kernel memory a filter's bytes lie in.
 */
export class KindKernelModule {
  private readonly name: string;
  private readonly base64: string;
  private compiled: WebAssembly.Module | null | undefined;

  constructor(name: string, base64: string) {
    this.name = name;
    this.base64 = base64;
  }

  /** The module compiled, or null where WebAssembly is missing or refuses it. */
  module(): WebAssembly.Module | null {
    if (this.compiled === undefined) this.compiled = compileKernel(this.name, this.base64);
    return this.compiled;
  }

  /**
   * The module instantiated over the memory `bytes` lie in (one instance per memory, shared by its filters), when
   * they are a view `newKernelBytes` made and the module compiles here; else undefined.
   */
  over(bytes: Uint8Array): KernelInstance | undefined {
    const compiled = this.module();
    return compiled === null ? undefined : instanceOver(compiled, bytes);
  }

  /**
   * Export `name` of `instance` as a function for the one filter the instance was had for: it points the module's
   * `bits` global at that filter's bytes before each call (filters sharing a memory share the instance).
   */
  static entry<Entry extends (...args: number[]) => number>(instance: KernelInstance, name: string): Entry {
    const call = instance.exports[name] as Entry;
    const { at, offset } = instance;
    return ((...args: number[]) => {
      at.value = offset;
      return call(...args);
    }) as Entry;
  }
}
