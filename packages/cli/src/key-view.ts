/** Lines up to this long (URLs, ids, paths) go through the scratch. */
const SCRATCH_BYTES = 512;

/**
 * Lines as keys without an allocation per line: the line's bytes are copied into one scratch buffer and the key is
 * a view of its first `length` bytes, made once per length and reused. A view per line would be ten million
 * short-lived objects at 10^7 lines, and V8 answers that allocation rate by growing its young generation to tens
 * of MB, which is more than the filter itself of a stream deduplicator. A line longer than the scratch gets a
 * view of its own. A returned key is valid until the next call.
 */
export class KeyView {
  private readonly scratch = new Uint8Array(SCRATCH_BYTES);
  private readonly views: Uint8Array[] = [];

  constructor() {
    for (let length = 0; length <= SCRATCH_BYTES; length++) this.views.push(this.scratch.subarray(0, length));
  }

  of(chunk: Uint8Array, start: number, end: number): Uint8Array {
    const length = end - start;
    if (length > SCRATCH_BYTES) return chunk.subarray(start, end);
    const scratch = this.scratch;
    for (let i = 0; i < length; i++) scratch[i] = chunk[start + i]!;
    return this.views[length]!;
  }
}
