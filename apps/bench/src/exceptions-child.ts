import { runExceptions } from './exceptions.js';

// `node exceptions-child.js REPS`: the --exceptions measurement in a process of its own (none of the bench's other
// modules loaded beside it, as for every other measurement), printing its result as JSON; progress on stderr.
const reps = Number(process.argv[2] ?? '5');
const result = runExceptions(reps, (line) => process.stderr.write(`${line}\n`));
process.stdout.write(`${JSON.stringify(result)}\n`);
