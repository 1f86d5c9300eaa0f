import { constants } from 'node:os';
import { CliError } from './errors.js';

/** The signals that stop a run cleanly: the main loop commits what it acknowledged, then exits 128 + the number. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * Signals as a flag the main loop reads, never as an abrupt exit: a handler only records the signal and wakes the
 * loop if it is waiting (for input, or for another writer's lock). The loop then stops reading, commits what it has
 * acknowledged (the filter file, the dedup state, the answers it holds back), and exits 128 + the signal's number
 * (130 for SIGINT, 143 for SIGTERM), as a shell reports a command a signal ended. A second signal while committing
 * is ignored: the commit is a few writes and a rename, and cutting it short would only lose the work.
 */
export class Interrupts {
  /** The first stop signal received, if any. */
  signal: StopSignal | undefined = undefined;
  private wake: () => void = () => undefined;
  /** Resolves when a stop signal arrives: race it against a wait. */
  readonly stopped: Promise<void> = new Promise((resolve) => {
    this.wake = resolve;
  });
  /** Waits that end early on a stop signal (see {@link onStop}). */
  private readonly waits = new Set<() => void>();
  private readonly handlers = STOP_SIGNALS.map((name) => {
    const handler = () => {
      this.signal ??= name;
      this.wake();
      for (const wait of this.waits) wait();
      this.waits.clear();
    };
    return [name, handler] as const;
  });

  /**
   * Calls `stop` when a stop signal arrives, unless the returned function is called first. Unlike racing against
   * {@link stopped}, a finished wait leaves nothing behind (a race adds a reaction to a promise that may never
   * settle: one per read of a long stream).
   */
  onStop(stop: () => void): () => void {
    this.waits.add(stop);
    return () => this.waits.delete(stop);
  }

  /** Starts catching the stop signals (until {@link dispose}). */
  install(): this {
    for (const [name, handler] of this.handlers) process.on(name, handler);
    return this;
  }

  dispose(): void {
    for (const [name, handler] of this.handlers) process.off(name, handler);
  }

  get interrupted(): boolean {
    return this.signal !== undefined;
  }

  /** 128 + the signal's number, or undefined when no signal came. */
  get exitStatus(): number | undefined {
    return this.signal === undefined ? undefined : 128 + constants.signals[this.signal];
  }
}

/** What a run that was never interrupted sees: no signal, and a wait that never ends early. */
export const NEVER_INTERRUPTED: Interrupts = new Interrupts();

/**
 * `work`, unless a stop signal comes first: then a CliError naming `path` (the run exits 128 + the signal's number).
 */
export async function untilStopped<T>(work: Promise<T>, interrupts: Interrupts, path: string): Promise<T> {
  let cancel: () => void = () => undefined;
  const stopped = new Promise<never>((_, reject) => {
    cancel = interrupts.onStop(() => reject(new CliError(`${path}: interrupted while waiting for input`)));
  });
  try {
    if (interrupts.interrupted) throw new CliError(`${path}: interrupted while waiting for input`);
    return await Promise.race([work, stopped]);
  } finally {
    cancel();
    stopped.catch(() => undefined);
  }
}
