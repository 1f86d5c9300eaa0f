import type { Job } from './job.js';
import { measure } from './worker.js';

// The child process entry: `node --expose-gc child.js '<job json>'` prints one Measurement as JSON.
const job = JSON.parse(process.argv[2] ?? '{}') as Job;
measure(job)
  .then((result) => process.stdout.write(`${JSON.stringify(result)}\n`))
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
