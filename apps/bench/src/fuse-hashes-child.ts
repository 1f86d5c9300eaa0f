import { timeFromHashes } from './fuse-hashes.js';

// `node fuse-hashes-child.js N`: one repetition of the fromHashes build in a process of its own, printing its
// milliseconds as JSON.
process.stdout.write(`${JSON.stringify(timeFromHashes(Number(process.argv[2] ?? '1000000')))}\n`);
