import { availableParallelism, loadavg } from 'node:os';

/**
 * The machine's load while the benchmark runs: the 1-minute load average read when the run starts and every 5 s
 * during it. The benchmark runs one measurement at a time, which with V8's own threads and the build before it
 * reads up to about 2.7 on the 2-core development machine (measured: quick runs with nothing else running); past the
 * cores plus one, for the median of the readings, other processes take CPU time from the measurements (a quick run
 * took 29.5 min at load 13, and its "met" and "short" were read from numbers that slow), so the verdicts are then
 * not judged: the numbers are printed, marked.
 */
export class MachineLoad {
  private readonly samples: number[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;

  /**
   * @param busyAbove busy when the median reading is past this 1-minute load average: the machine's cores plus one
   *   by default (Linux counts runnable and waiting processes).
   * @param read the load average now (the system's 1-minute one by default).
   */
  constructor(
    readonly busyAbove: number = availableParallelism() + 1,
    private readonly read: () => number | undefined = () => loadavg()[0],
  ) {}

  /** Starts sampling (now and every 5 s, the timer never keeps the process alive). */
  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), 5_000);
    this.timer.unref();
    return this;
  }

  /** Stops sampling, with one last sample. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
  }

  /** The highest load average seen, or 0 where the system gives none (Windows). */
  get peak(): number {
    return Math.max(0, ...this.samples);
  }

  /** The median reading (the upper one of an even count), or 0 where the system gives none. */
  get median(): number {
    const sorted = [...this.samples].sort((a, b) => a - b);
    return sorted[sorted.length >> 1] ?? 0;
  }

  /** Whether the machine was busier than {@link busyAbove} for most of the run: verdicts are not judged then. */
  get busy(): boolean {
    return this.median > this.busyAbove;
  }

  /** One sentence for the report: the load at the start and at most during the run, and what that means. */
  describe(): string {
    const start = this.samples[0] ?? 0;
    const line = `Load average ${start.toFixed(1)} at the start, median ${this.median.toFixed(1)} and at most ${this.peak.toFixed(1)} during the run (busy past ${this.busyAbove})`;
    return this.busy
      ? `${line}: **the machine was busy**, other work took CPU time from the measurements, so the goals are not judged; run again on a quiet machine.`
      : `${line}.`;
  }

  /** A goal's verdict: `met`, `**short**`, `n/a` for no verdict, or not judged on a busy machine. */
  verdict(met: boolean | null): string {
    if (met === null) return 'n/a';
    if (this.busy)
      return `not judged: machine busy (${met ? 'met' : 'short'} at load ${this.peak.toFixed(1)})`;
    return met ? 'met' : '**short**';
  }

  private sample(): void {
    const one = this.read();
    if (one !== undefined) this.samples.push(one);
  }
}
