/**
 * Where filters' bits go in WebAssembly memory, so that the batch kernels can work on them, for any number of live
 * filters.
 *
 * Every WebAssembly memory reserves about 10 GiB of address space (V8 guards its bounds that way, whatever its
 * size), so a process holds only about 13,000 of them; past that each new one costs a garbage collection and then
 * fails. A memory per filter therefore stopped a storage engine with a filter per table file at about 13,000 live
 * filters. Here filters of up to {@link SHARED_UP_TO} bytes share memories (arenas) of 4 MiB doubling to 256 MiB:
 * a filter gets a 64-byte aligned place in the first arena with room, first fit, and a new arena is made when none
 * has; the place returns to its arena when the view handed out is collected (a FinalizationRegistry watches the
 * view itself), and an arena whose places are all returned is let go, so its memory goes back to the system.
 * Larger filters get a memory of their own, exactly their size past the scratch: 13,000 of them hold at least
 * 13 GB, and a filter of 10^6 keys holds its table and 64 KiB, not an arena (a 1.39 MB cuckoo table held a 16 MiB
 * arena when filters up to 8 MiB shared).
 *
 * A place is reused once the view is collected, so a view derived from it (`subarray`, `new Uint8Array(buffer,
 * …)`) cannot keep it: bytes handed out to callers go through {@link handOut}, which copies a shared place's bytes
 * (at most {@link SHARED_UP_TO}) and gives a memory of its own as it is (its buffer is never reused).
 *
 * Every memory keeps its first {@link SCRATCH_BYTES} for the kernels' scratch (kernel-memory.ts), shared by the
 * filters in it: a batch writes its hashes there and reads its answers back with no other code between.
 */

/** The kernels' scratch at the start of every memory; filters' bits start at or past it. */
export const SCRATCH_BYTES = 65536;

const PAGE_BYTES = 65536;

/** Places are aligned to a cache line, so each of a blocked filter's 64-byte blocks is one line. */
const ALIGN = 64;

/** Filters up to this many bytes share arenas; larger ones get a memory of their own. */
export const SHARED_UP_TO: number = 2 ** 20;

/**
 * The most bytes an arena has for filters: 256 filters of the largest shared size, about 890 of 300 KB.
 * The first arena of a process has {@link FIRST_ARENA_BYTES}, and each new one twice the last while arenas live,
 * up to this (see {@link arenaBytes}).
 */
export const ARENA_BYTES: number = 256 * 2 ** 20;

/**
 * The bytes for filters of a process's first arena: four filters of the largest shared size, the most one process
 * holds beyond its filters while they fit one arena. V8 counts a memory as external memory from the moment it is
 * made, and a large jump in it starts a full collection: a first arena of 256 MiB made for one 1.2 MB filter cost a
 * 44 ms mark-compact with a 50 MB heap (none with 16 MiB), and more with a larger heap.
 */
export const FIRST_ARENA_BYTES: number = 4 * 2 ** 20;

/** The bytes for filters of the next arena when `live` arenas live: doubling from the first, at most the last. */
export function arenaBytes(live: number): number {
  return Math.min(ARENA_BYTES, FIRST_ARENA_BYTES * 2 ** live);
}

/** One shared memory: its free ranges (returned places, which hold old bytes), and its untouched tail. */
interface Arena {
  readonly memory: WebAssembly.Memory;
  /** Where its room for filters ends: {@link SCRATCH_BYTES} plus its {@link arenaBytes}. */
  readonly end: number;
  /** Returned ranges [starts[i], ends[i]), sorted and never adjacent; their bytes must be zeroed before reuse. */
  readonly starts: number[];
  readonly ends: number[];
  /** Bytes from here to the end have never been handed out, so they are still zeros. */
  top: number;
  /** Places handed out and not yet returned. */
  live: number;
}

/** A place handed out in an arena, as the registry holds it until the view is collected. */
interface Place {
  readonly arena: Arena;
  readonly start: number;
  readonly end: number;
}

/** The arenas with places live, oldest first (new places go in the first with room, which keeps arenas full). */
const arenas: Arena[] = [];

/** The memory each view handed out lies in. */
const memories = new WeakMap<Uint8Array, WebAssembly.Memory>();

/** The buffers of the shared arenas (a memory that never grows keeps its one buffer). */
const sharedBuffers = new WeakSet<ArrayBufferLike>();

const registry: FinalizationRegistry<Place> | undefined =
  typeof FinalizationRegistry === 'function' ? new FinalizationRegistry(returnPlace) : undefined;

/**
 * A zeroed view of `byteLength` bytes (at most 2^29) in a WebAssembly memory, 64-byte aligned at or past
 * {@link SCRATCH_BYTES}: in a shared arena up to {@link SHARED_UP_TO} bytes, else in a memory of its own. Undefined
 * when the memory cannot be had. The memory never grows, so the view stays valid while it lives.
 */
export function placeBytes(byteLength: number): Uint8Array | undefined {
  if (byteLength <= SHARED_UP_TO && registry !== undefined) return placeShared(byteLength, registry);
  const memory = newMemory(SCRATCH_BYTES + byteLength);
  if (memory === undefined) return undefined;
  const view = new Uint8Array(memory.buffer, SCRATCH_BYTES, byteLength);
  memories.set(view, memory);
  return view;
}

/** The memory a view {@link placeBytes} handed out lies in; undefined for any other array, sub-views included. */
export function memoryOf(view: Uint8Array): WebAssembly.Memory | undefined {
  return memories.get(view);
}

/**
 * Bytes of a filter's storage (a kernel-memory view or part of one, or a plain array) as they may be handed to a
 * caller: a copy where they lie in a shared arena (whose place is reused once the filter's view is collected,
 * whatever the caller derived from it), else `view` itself (a plain array, or a memory of its own, which lives as
 * long as any view of its buffer).
 */
export function handOut(view: Uint8Array): Uint8Array {
  return sharedBuffers.has(view.buffer) ? view.slice() : view;
}

/** How many arenas are live (for tests and the bench's scenario of many filters). */
export function liveArenas(): number {
  return arenas.length;
}

function placeShared(byteLength: number, watch: FinalizationRegistry<Place>): Uint8Array | undefined {
  const size = Math.ceil(byteLength / ALIGN) * ALIGN;
  for (const arena of arenas) {
    const view = placeIn(arena, size, byteLength, watch);
    if (view !== undefined) return view;
  }
  const end = SCRATCH_BYTES + arenaBytes(arenas.length);
  const memory = newMemory(end);
  if (memory === undefined) return undefined;
  const arena: Arena = { memory, end, starts: [], ends: [], top: SCRATCH_BYTES, live: 0 };
  sharedBuffers.add(memory.buffer);
  arenas.push(arena);
  return placeIn(arena, size, byteLength, watch);
}

/** A place of `size` bytes in `arena` (first fit among returned ranges, else from the untouched tail), or none. */
function placeIn(
  arena: Arena,
  size: number,
  byteLength: number,
  watch: FinalizationRegistry<Place>,
): Uint8Array | undefined {
  const { starts, ends } = arena;
  let start = -1;
  let reused = false;
  for (let i = 0; i < starts.length; i++) {
    if (ends[i]! - starts[i]! < size) continue;
    start = starts[i]!;
    reused = true;
    if (ends[i]! - start === size) {
      starts.splice(i, 1);
      ends.splice(i, 1);
    } else starts[i] = start + size;
    break;
  }
  if (start < 0) {
    if (arena.end - arena.top < size) return undefined;
    start = arena.top;
    arena.top += size;
  }
  const view = new Uint8Array(arena.memory.buffer, start, byteLength);
  if (reused) view.fill(0);
  arena.live++;
  memories.set(view, arena.memory);
  watch.register(view, { arena, start, end: start + size });
  return view;
}

/** Gives a collected view's place back to its arena, and lets the arena go when it was the last one. */
function returnPlace(place: Place): void {
  const { arena, start, end } = place;
  arena.live--;
  if (arena.live === 0) {
    const at = arenas.indexOf(arena);
    if (at >= 0) arenas.splice(at, 1);
    return;
  }
  const { starts, ends } = arena;
  let i = 0;
  while (i < starts.length && starts[i]! < start) i++;
  const joinsBefore = i > 0 && ends[i - 1] === start;
  const joinsAfter = i < starts.length && starts[i] === end;
  if (joinsBefore && joinsAfter) {
    ends[i - 1] = ends[i]!;
    starts.splice(i, 1);
    ends.splice(i, 1);
  } else if (joinsBefore) ends[i - 1] = end;
  else if (joinsAfter) starts[i] = start;
  else {
    starts.splice(i, 0, start);
    ends.splice(i, 0, end);
  }
}

/** A memory of at least `bytes` bytes that never grows; undefined when the runtime refuses one. */
function newMemory(bytes: number): WebAssembly.Memory | undefined {
  const pages = Math.ceil(bytes / PAGE_BYTES);
  try {
    return new WebAssembly.Memory({ initial: pages, maximum: pages });
  } catch {
    return undefined;
  }
}
