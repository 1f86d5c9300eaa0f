import { type AnyFilter, grows } from './filters.js';
import { grouped } from './units.js';

/**
 * Watches a filter of fixed size for the moment it passes the capacity it was created for, where its
 * false-positive rate starts to exceed the one promised, and says so on stderr once, at that moment. Filters built
 * from explicit bits and hashes promised no rate and are not watched; a growing (scalable) filter grows instead.
 */
export class CapacityWatch {
  private readonly capacity: number | undefined;
  private readonly fpr: number | undefined;
  /** True once the filter holds more keys than its capacity. */
  passed = false;

  /**
   * `filter`: a local filter, read at each {@link check}; or the facts of a filter elsewhere (Redis), whose count
   * the caller passes to {@link checkCount}.
   */
  constructor(
    private readonly filter:
      | AnyFilter
      | { readonly capacity: number | undefined; readonly fpr: number | undefined },
    private readonly label: string,
  ) {
    const local = 'add' in filter;
    this.capacity = local && grows(filter) ? undefined : filter.capacity;
    this.fpr = filter.fpr;
    if (local) this.check();
  }

  /** Call after keys were added to a local filter; cheap enough to call per key. */
  check(): void {
    if ('count' in this.filter) this.checkCount(this.filter.count);
  }

  /** Call with the filter's count after keys were added. */
  checkCount(count: number): void {
    if (!this.passed && this.capacity !== undefined && count > this.capacity) this.warn(count);
  }

  private warn(count: number): void {
    this.passed = true;
    const target = this.fpr === undefined ? '' : ` (created for ${this.fpr})`;
    process.stderr.write(
      `bloomkit: ${this.label}: warning: now holds ${grouped(count)} keys, past its capacity of ${grouped(this.capacity!)}; its false-positive rate rises above the one promised${target}. Create a larger filter, or use a scalable one\n`,
    );
  }
}
