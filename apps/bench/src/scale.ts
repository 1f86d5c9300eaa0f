import { StandardBloomFilter } from '@bloomkit/standard';

/** What `--scale N` reports: one bloomkit standard filter for N keys generated on the fly. */
export interface ScaleResult {
  readonly n: number;
  readonly fpr: number;
  readonly bits: number;
  readonly hashes: number;
  readonly pages: number;
  readonly addOps: number;
  readonly hasOps: number;
  readonly falseNegatives: number;
  readonly presentProbed: number;
  readonly absentProbed: number;
  readonly measuredFpr: number;
  readonly predictedFpr: number;
  readonly peakRssBytes: number;
  readonly seconds: number;
}

const key = (i: number) => `https://scale.example.com/page/${i}`;
const absentKey = (i: number) => `https://absent.example.com/page/${i}`;

/**
 * Adds N keys (generated one at a time, never held), then probes 10^7 present keys (spread over the whole range)
 * and 10^7 absent keys. Proves the big-filter path: past 2^32 bits the filter is paged.
 */
export function runScale(n: number, fpr: number, progress: (line: string) => void): ScaleResult {
  const started = performance.now();
  let peak = process.memoryUsage().rss;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().rss);
  };
  const filter = StandardBloomFilter.create(n, fpr);
  sample();
  const step = Math.max(1, Math.floor(n / 20));
  let t = performance.now();
  for (let i = 0; i < n; i++) {
    filter.add(key(i));
    if (i % step === step - 1) {
      sample();
      progress(`scale: added ${(((i + 1) / n) * 100).toFixed(0)}% (${i + 1} keys)`);
    }
  }
  const addOps = (n / (performance.now() - t)) * 1000;

  const probes = Math.min(n, 10_000_000);
  const stride = Math.max(1, Math.floor(n / probes));
  let falseNegatives = 0;
  t = performance.now();
  for (let j = 0; j < probes; j++) if (!filter.has(key(j * stride))) falseNegatives++;
  const hasOps = (probes / (performance.now() - t)) * 1000;
  progress('scale: present keys probed');

  const absent = 10_000_000;
  let falsePositives = 0;
  for (let j = 0; j < absent; j++) if (filter.has(absentKey(j))) falsePositives++;
  sample();
  progress('scale: absent keys probed');
  return {
    n,
    fpr,
    bits: filter.bits,
    hashes: filter.hashes,
    pages: Math.ceil(filter.bits / 2 ** 32),
    addOps,
    hasOps,
    falseNegatives,
    presentProbed: probes,
    absentProbed: absent,
    measuredFpr: falsePositives / absent,
    predictedFpr: filter.expectedFpr(),
    peakRssBytes: peak,
    seconds: (performance.now() - started) / 1000,
  };
}

export function scaleMarkdown(r: ScaleResult): string {
  return [
    `### --scale ${r.n.toExponential(0).replace('e+', 'e')}: one StandardBloomFilter, p = ${r.fpr}`,
    '',
    '| bits (m) | k | 512 MiB pages | add M/s | has M/s | false negatives | fpr measured (10^7 absent) | fpr from fill | peak RSS | time |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${r.bits.toLocaleString('en-US')} (${(r.bits / 8 / 1e9).toFixed(2)} GB) | ${r.hashes} | ${r.pages} | ${(r.addOps / 1e6).toFixed(2)} | ${(r.hasOps / 1e6).toFixed(2)} | ${r.falseNegatives} of ${r.presentProbed.toLocaleString('en-US')} | ${(r.measuredFpr * 100).toFixed(4)}% | ${(r.predictedFpr * 100).toFixed(4)}% | ${(r.peakRssBytes / 2 ** 30).toFixed(2)} GiB | ${r.seconds.toFixed(0)} s |`,
    '',
    'Keys are generated one at a time (`https://scale.example.com/page/<i>`) and not held, so add M/s includes building each key string.',
  ].join('\n');
}
