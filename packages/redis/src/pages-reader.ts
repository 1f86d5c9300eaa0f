// Helpers of the stores that move a payload between pages and Redis strings.

/** 0, 1, …, n − 1. */
export function everyIndex(n: number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** Reads consecutive ranges of bytes split over pages (a payload larger than one array). */
export class PagesReader {
  private page = 0;
  private at = 0;

  constructor(private readonly pages: readonly Uint8Array[]) {}

  /** The next `length` bytes: a view when they lie in one page, else a copy. */
  take(length: number): Uint8Array {
    const first = this.pages[this.page]!;
    if (this.at + length <= first.length) {
      const view = first.subarray(this.at, this.at + length);
      this.at += length;
      if (this.at === first.length) {
        this.page++;
        this.at = 0;
      }
      return view;
    }
    const out = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const page = this.pages[this.page]!;
      const n = Math.min(page.length - this.at, length - done);
      out.set(page.subarray(this.at, this.at + n), done);
      done += n;
      this.at += n;
      if (this.at === page.length) {
        this.page++;
        this.at = 0;
      }
    }
    return out;
  }
}
