import type { FilterClass } from '@bloomkit/filters';
import { DEFAULT_GROWTH, DEFAULT_TIGHTENING } from '@bloomkit/scalable';
import { readCount, readDuration, readNumber, readRate } from './numbers.js';
import type { SizeInput } from './size.js';

/**
 * The fields a kind is sized from, by its record's `params`: which of n, p, m, k (single kinds), a chain's schedule,
 * a window and its duration. Each field reads its text into one {@link SizeInput} member.
 */
export interface Field {
  readonly name: keyof SizeInput;
  readonly label: string;
  readonly hint: string;
  /** The text a new visitor sees. */
  readonly initial: string;
  readonly read: (field: string, text: string) => number | undefined;
}

const capacity = (label: string, initial: string): Field => ({
  name: 'capacity',
  label,
  hint: 'e.g. 1e6, 250k',
  initial,
  read: readCount,
});
const fpr: Field = {
  name: 'fpr',
  label: 'p: false-positive rate',
  hint: 'e.g. 0.01, 1%',
  initial: '1%',
  read: readRate,
};

const SINGLE: readonly Field[] = [
  capacity('n: keys', '1e6'),
  fpr,
  {
    name: 'bits',
    label: 'm: bits (counters)',
    hint: 'blank: solved from n and p',
    initial: '',
    read: readCount,
  },
  { name: 'hashes', label: 'k: positions per key', hint: 'blank: the best k', initial: '', read: readCount },
];

const BY_PARAMS: Record<FilterClass['kind']['params'], readonly Field[]> = {
  single: SINGLE,
  'split-block': [capacity('n: distinct values', '1e6'), fpr],
  fuse: [capacity('n: keys of the set', '1e6')],
  cuckoo: [capacity('n: keys', '1e6'), fpr],
  chain: [
    capacity("n0: the first sub-filter's keys", '1000'),
    fpr,
    { name: 'growth', label: 'g: growth', hint: `default ${DEFAULT_GROWTH}`, initial: '', read: readNumber },
    {
      name: 'tightening',
      label: 'r: tightening',
      hint: `default ${DEFAULT_TIGHTENING}`,
      initial: '',
      read: readNumber,
    },
    { name: 'keys', label: 'keys to plan for', hint: 'default 1000 × n0', initial: '1e7', read: readCount },
  ],
  ring: [
    capacity('window: keys it keeps', '1e5'),
    fpr,
    {
      name: 'duration',
      label: 'duration (a time window)',
      hint: 'e.g. 24h; blank: a count window',
      initial: '',
      read: readDuration,
    },
  ],
  wrapper: SINGLE,
};

/** The fields of kind `Class`. */
export function fieldsOf(Class: FilterClass): readonly Field[] {
  return BY_PARAMS[Class.kind.params];
}
