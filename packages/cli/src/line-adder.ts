import { hashRangeInto } from '@bloomkit/core/internal';
import { type AnyFilter, takesHashes } from './filters.js';
import { KeyView } from './key-view.js';

/**
 * Test-and-add of lines where they lie in the read buffer: a line's bytes are hashed in place (`hashRangeInto`) and
 * the filter takes the hash (`addHash`), so no line is copied, viewed or made a string. The answer is the one
 * `filter.add(line bytes)` gives. A filter without `addHash` (an exceptions file, whose list needs the key
 * itself) gets each line through a {@link KeyView} instead.
 */
export class LineAdder {
  private readonly hash = new Int32Array(4);
  private readonly keys = new KeyView();
  private readonly inPlace: boolean;

  constructor(private readonly filter: AnyFilter) {
    this.inPlace = takesHashes(filter);
  }

  /** `filter.add` of the line `chunk[start, end)`: true when it was new. */
  add(chunk: Uint8Array, start: number, end: number): boolean {
    if (!this.inPlace) return this.filter.add(this.keys.of(chunk, start, end));
    hashRangeInto(chunk, start, end, this.filter.seed, this.hash);
    return this.filter.addHash(this.hash);
  }
}
