import { runFootprint } from './footprint.js';

// `node footprint-child.js REPS`: the --footprint measurement in a process of its own, printing its result as JSON;
// progress on stderr.
const reps = Number(process.argv[2] ?? '5');
const result = runFootprint(reps, (line) => process.stderr.write(`${line}\n`));
process.stdout.write(`${JSON.stringify(result)}\n`);
