import type { AnyFilter } from './filters.js';
import { grouped } from './units.js';

/**
 * Progress on stderr while keys stream in: keys, keys per second, fill ratio and the current false-positive
 * estimate, redrawn twice a second on one line. Only when stderr is a terminal and not `--quiet`; a pipe or a log
 * file gets nothing.
 */
export class Progress {
  private readonly enabled: boolean;
  private readonly started = performance.now();
  private last = 0;

  constructor(
    quiet: boolean,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.enabled = !quiet && stream.isTTY === true;
  }

  /** Called every few thousand keys; redraws at most twice a second. */
  tick(keys: number, filter: AnyFilter): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.last < 500) return;
    this.last = now;
    this.stream.write(`\r${line(keys, now - this.started, filter)}\u001b[K`);
  }

  /** Clears the line. */
  done(): void {
    if (this.enabled && this.last > 0) this.stream.write('\r\u001b[K');
  }
}

function line(keys: number, elapsedMs: number, filter: AnyFilter): string {
  const rate = keys / Math.max(elapsedMs / 1000, 1e-3);
  return `${grouped(keys)} keys, ${grouped(Math.round(rate))} keys/s, fill ${(100 * filter.fillRatio()).toFixed(1)}%, false-positive rate now ~${filter.expectedFpr().toPrecision(2)}`;
}
