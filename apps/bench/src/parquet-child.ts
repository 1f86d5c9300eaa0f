import { runParquet } from './parquet.js';

// `node parquet-child.js REPS`: the --parquet measurement in a process of its own, printing its result as JSON;
// progress on stderr.
const reps = Number(process.argv[2] ?? '5');
const result = runParquet(reps, (line) => process.stderr.write(`${line}\n`));
process.stdout.write(`${JSON.stringify(result)}\n`);
