// `@bloomkit/core/internal`: the engine, codecs and kernel memory the bloomkit packages alone build on, and nothing
// an application needs (the parts for applications and private kinds are `@bloomkit/core/kit`). It has no semver of
// its own: every bloomkit package is released in one fixed version group and depends on the others at exact
// versions, so a package always meets the core it was built with (CONTRIBUTING.md, "@bloomkit/core/internal"). Who
// imports it is not listed here: docs/test/packaging.spec.ts knows. One export per module, in path order.

/**
 * The codec of kinds that nest envelopes (docs/FORMAT.md §3.4, §3.5): a kind's outer envelope (`decodeChain`),
 * a chain's payload split into its sub-filters' files (`splitChain`), a range of a payload as views
 * (`payloadRange`), a chain or any nesting file written as parts (`encodeChainParts`, `encodeNestedParts`), and
 * parts joined into one array for `serialize` (`joinParts`).
 */
export {
  decodeChain,
  encodeChainParts,
  encodeNestedParts,
  joinParts,
  payloadRange,
  splitChain,
} from './chain-codec.js';
/** add, has, union, … over any layout and store: what a single kind with its own store extends. */
export { BloomEngine } from './engine.js';
/**
 * Options of the public APIs, checked with typed errors: `checkAllocation` refuses a store past `maxBytes` before
 * it is allocated; `readOptions`, `readDeserializeOptions` and `resolveSeed` (which draws 'random').
 */
export { checkAllocation, readDeserializeOptions, readOptions, resolveSeed } from './filter.js';
/**
 * `getUint64`/`setUint64`: u64 fields of a params block, exact up to 2^53 − 1 and refused past it;
 * `MIN_ENVELOPE_BYTES`, the smallest envelope, for a chain's bound on its sub-filter count.
 */
export { getUint64, MIN_ENVELOPE_BYTES, setUint64 } from './format.js';
/** The JSON form (`{ format, version, kind, base64 }`) from and to a file's bytes. */
export { fromFilterJson, toFilterJson } from './json.js';
/**
 * A filter's batch kernel chosen once, by the one rule and switch (WebAssembly or JavaScript) every kind obeys:
 * a kind with a kernel of its own holds its kernel in one.
 */
export { KernelChoice } from './kernel/backend.js';
/**
 * The counter store of a new counting filter: from 256 KiB of counters, in a kernel memory where the batch kernel
 * works on them.
 */
export { newCounterArray } from './new-counter-array.js';
/** How a constructor's shape options and state (storage, counts; their types are in kit) are planned and checked. */
export { planShape, type ResolvedShape, resolveShape, resolveState } from './shape.js';
/** Reads a single-filter file (docs/FORMAT.md §3.1–3.3) of a kind into its shape and state. */
export { decodeSingleFilter } from './single-filter-codec.js';
/**
 * A filter's bytes as they may be handed to a caller (`payloadParts`): a copy where they share a kernel memory with
 * other filters (whose places are reused once a filter is gone, whatever views a caller derived), else themselves.
 */
export { handOut } from './wasm/kernel-arena.js';
/**
 * Kernel memory for a kind's own batch kernel: `newKernelBytes`, `byteLength` bytes (zeros or a copy) in a kernel
 * memory, where a batch kernel can work on them, from 256 KiB where WebAssembly loads, else a plain array; a
 * `KernelInstance` is a kernel module instantiated over the memory such bytes lie in (with the hashes and answers
 * regions its batches use, `KernelScratch`), as `KindKernelModule.over` gives one.
 */
export { type KernelInstance, type KernelScratch, newKernelBytes } from './wasm/kernel-memory.js';
/** A kind's kernel module compiled from its base64 bytes (the `NAME-wasm.ts` the shared WebAssembly build writes). */
export { compileKernel } from './wasm/kernel-modules.js';
/**
 * A kind's own kernel module: compiled once on first use, instantiated over the kernel memory a filter's bytes lie
 * in (`over`), its entries bound to that filter (`KindKernelModule.entry`).
 */
export { KindKernelModule } from './wasm/kind-kernel.js';
