import { type AnyFilter, grows } from './filters.js';
import { grouped } from './units.js';

/**
 * Watches a filter of fixed size for the moment it passes the capacity it was created for, where its
 * false-positive rate starts to exceed the one promised, and says so on stderr once, at that moment. Filters built
 * from explicit bits and hashes promised no rate and are not watched; a growing (scalable) filter grows instead.
 */
export class CapacityWatch {
  private readonly capacity: number | undefined;
  /** True once the filter holds more keys than its capacity. */
  passed = false;

  constructor(
    private readonly filter: AnyFilter,
    private readonly label: string,
  ) {
    this.capacity = grows(filter) ? undefined : filter.capacity;
    if (this.capacity !== undefined && filter.count > this.capacity) this.warn();
  }

  /** Call after keys were added; cheap enough to call per key. */
  check(): void {
    if (!this.passed && this.capacity !== undefined && this.filter.count > this.capacity) this.warn();
  }

  private warn(): void {
    this.passed = true;
    const { filter } = this;
    const target = filter.fpr === undefined ? '' : ` (created for ${filter.fpr})`;
    process.stderr.write(
      `bloomkit: ${this.label}: warning: now holds ${grouped(filter.count)} keys, past its capacity of ${grouped(this.capacity!)}; its false-positive rate rises above the one promised${target}. Create a larger filter, or use a scalable one\n`,
    );
  }
}
