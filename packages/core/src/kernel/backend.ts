/**
 * The one switch between WebAssembly and JavaScript for every batch of every kind: the batch hash
 * (batch-hash.ts), core's bit and counter kernels (kernel/bit-kernels.ts) and a kind's own kernel (the window's)
 * all ask {@link kernelBackend} before each batch. 'auto' (the default) runs WebAssembly wherever its module
 * loads, each module on its own (a hash module refused here leaves the bit kernels on, and the other way round);
 * 'javascript' runs the JavaScript loops everywhere, which is what runs where WebAssembly is refused, so the tests
 * force it to check both paths give the same answers and bytes.
 */
export type KernelBackend = 'auto' | 'javascript';

let backend: KernelBackend = 'auto';

/** Sets the switch; returns what it was. Not exported from the package: the tests set it. */
export function setKernelBackend(choice: KernelBackend): KernelBackend {
  const before = backend;
  backend = choice;
  return before;
}

/** The switch now: 'auto' (WebAssembly where it loads) or 'javascript' (forced). */
export function kernelBackend(): KernelBackend {
  return backend;
}

/**
 * A filter's batch kernel, chosen once by the one rule every kind follows: made on the filter's first batch by
 * `make` (undefined when there is none for it: bits outside a kernel memory, a module that does not compile here, a
 * shape the kernel does not take) and used for every batch while the switch is 'auto'; null (run the JavaScript
 * loops) when there is none or the switch is 'javascript'.
 */
export class KernelChoice<T> {
  private made: T | null | undefined;
  private readonly make: () => T | undefined;

  /** `make` is called on the first {@link get}, once. */
  constructor(make: () => T | undefined) {
    this.make = make;
  }

  /** The kernel for this batch, or null for the JavaScript loops. */
  get(): T | null {
    if (backend === 'javascript') return null;
    if (this.made === undefined) this.made = this.make() ?? null;
    return this.made;
  }
}
