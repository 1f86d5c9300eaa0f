import { InvalidArgumentError, MAX_CLOCK_MS } from '@bloomkit/core';
import { checkClock } from '@bloomkit/core/kit';
import { RedisFilterError } from './errors.js';

/**
 * Whose clock a time window in Redis follows. By default the server's (`TIME`, read inside each script), so every
 * writer of a shared window agrees on the time whatever its own clock says. A caller may opt into its own clock
 * (`clock`); its reading is then used only while it is within `tolerance` ms of the server's, and refused with a
 * {@link ClockSkewError} otherwise, before anything is written.
 */
export interface WindowClock {
  /** The caller's clock (checked readings in ms), or undefined for the server's. */
  readonly own: (() => number) | undefined;
  /** The largest |own − server| in ms that a reading may be off; Infinity trusts the caller's clock. */
  readonly tolerance: number;
}

/** The server's clock: what a handle follows unless its caller gives a clock of its own. */
export const SERVER_CLOCK: WindowClock = { own: undefined, tolerance: Number.POSITIVE_INFINITY };

/** The default tolerance of a caller's clock against the server's: 1,000 ms. */
export const DEFAULT_CLOCK_TOLERANCE_MS = 1_000;

/** The marker a window script's error reply starts with when the caller's clock is off the server's. */
export const CLOCK_REPLY = 'BLOOMKIT_CLOCK';

/**
 * A caller's clock was further from the Redis server's than the tolerance allows: nothing was written. `skew` is
 * the caller's reading less the server's, in ms.
 */
export class ClockSkewError extends RedisFilterError {
  /** The caller's reading less the server's time, in ms. */
  readonly skew: number;
  constructor(message: string, skew: number) {
    super(message);
    this.name = 'ClockSkewError';
    this.skew = skew;
  }
}

/** Reads the `clock` and `clockTolerance` options; typed errors name the option and its range. */
export function readWindowClock(
  where: string,
  options: { readonly clock?: unknown; readonly clockTolerance?: unknown },
): WindowClock {
  if (options.clock !== undefined && typeof options.clock !== 'function') {
    throw new InvalidArgumentError(
      `${where}: clock must be a function returning milliseconds, got ${typeof options.clock}`,
    );
  }
  // Each reading is checked where it is made (clockArguments), so an error names the call that read it.
  const own = options.clock as (() => number) | undefined;
  const tolerance = options.clockTolerance ?? DEFAULT_CLOCK_TOLERANCE_MS;
  if (
    typeof tolerance !== 'number' ||
    !(
      tolerance === Number.POSITIVE_INFINITY ||
      (Number.isSafeInteger(tolerance) && tolerance >= 0 && tolerance <= MAX_CLOCK_MS)
    )
  ) {
    throw new InvalidArgumentError(
      `${where}: clockTolerance must be an integer number of ms in [0, 2^47] or Infinity, got ${String(tolerance)}`,
    );
  }
  if (options.clockTolerance !== undefined && own === undefined) {
    throw new InvalidArgumentError(`${where}: clockTolerance applies to a caller's clock; give clock too`);
  }
  return { own, tolerance };
}

/**
 * The script arguments of a clock: the caller's reading ('' for the server's time) and the tolerance. A reading that
 * is not ms since the epoch in [0, 2^47] is an InvalidArgumentError naming `where`, the call that read it.
 */
export function clockArguments(where: string, clock: WindowClock): [string, string] {
  if (clock.own === undefined) return ['', 'inf'];
  return [
    String(checkClock(where, clock.own)()),
    clock.tolerance === Number.POSITIVE_INFINITY ? 'inf' : String(clock.tolerance),
  ];
}

/** The ClockSkewError of a script's BLOOMKIT_CLOCK reply, or undefined for any other error. */
export function clockSkewOf(
  where: string,
  name: string,
  error: unknown,
  tolerance: number,
): ClockSkewError | undefined {
  if (!(error instanceof Error) || !error.message.startsWith(CLOCK_REPLY)) return undefined;
  const skew = Number(error.message.split(' ')[1]);
  return new ClockSkewError(
    `${where}: this client's clock is ${skew} ms off the Redis server's holding ${JSON.stringify(name)}, more than the clockTolerance of ${tolerance} ms; nothing was written (fix the clock, or leave out the clock option to use the server's)`,
    skew,
  );
}
