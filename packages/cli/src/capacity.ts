import { type AnyFilter, outgrowsCapacity } from './filters.js';
import { grouped } from './units.js';

/**
 * Watches a filter of fixed size for the moment it passes the capacity it was created for, where its
 * false-positive rate starts to exceed the one promised, and says so on stderr once, at that moment. Filters built
 * from explicit bits and hashes promised no rate and are not watched; a growing (scalable) filter grows instead.
 */
export class CapacityWatch {
  /** True once the filter holds more keys than its capacity. */
  passed = false;

  /** `capacity` undefined: nothing to watch (explicit m and k, or a filter that grows). */
  constructor(
    private readonly capacity: number | undefined,
    private readonly fpr: number | undefined,
    private readonly label: string,
  ) {}

  /** The watch of a local filter, checked at once (a file may already be past its capacity). */
  static of(filter: AnyFilter, label: string): CapacityWatch {
    const watch = new CapacityWatch(
      outgrowsCapacity(filter) ? undefined : filter.capacity,
      filter.fpr,
      label,
    );
    watch.check(filter.count);
    return watch;
  }

  /** Call with the filter's count after keys were added; cheap enough to call per key. */
  check(count: number): void {
    if (!this.passed && this.capacity !== undefined && count > this.capacity) this.warn(count);
  }

  /**
   * After a batch of adds that took the count from `before` to `after`, one key at a time: warns as {@link check}
   * would have at the key that passed the capacity (the count then was capacity + 1).
   */
  checkBatch(before: number, after: number): void {
    if (this.passed || this.capacity === undefined || after <= this.capacity) return;
    this.warn(before <= this.capacity ? this.capacity + 1 : after);
  }

  private warn(count: number): void {
    this.passed = true;
    const target = this.fpr === undefined ? '' : ` (created for ${this.fpr})`;
    process.stderr.write(
      `bloomkit: ${this.label}: warning: now holds ${grouped(count)} keys, past its capacity of ${grouped(this.capacity!)}; its false-positive rate rises above the one promised${target}. Create a larger filter, or use a scalable one\n`,
    );
  }
}
