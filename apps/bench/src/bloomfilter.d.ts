// Types for `bloomfilter` (the package ships none), limited to what the benchmark calls.
declare module 'bloomfilter' {
  export class BloomFilter {
    constructor(m: number, k: number);
    readonly m: number;
    readonly k: number;
    add(value: string): void;
    test(value: string): boolean;
    static withTargetError(n: number, error: number): BloomFilter;
    static fromJSON(value: unknown): BloomFilter;
  }
}
