import { runLiveFilters } from './live-filters.js';

// `node --expose-gc live-filters-child.js KIND N`: one kind's --live-filters run in a process of its own, printing
// its result as JSON; progress on stderr.
const kind = process.argv[2] === 'blocked' ? 'blocked' : 'standard';
const n = Number(process.argv[3] ?? '30000');
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('live-filters-child: run with node --expose-gc');
const result = await runLiveFilters(kind, n, gc, (line) => process.stderr.write(`${line}\n`));
process.stdout.write(`${JSON.stringify(result)}\n`);
