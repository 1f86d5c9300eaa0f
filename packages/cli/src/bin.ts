#!/usr/bin/env node
import { captureArguments } from './arguments.js';
import { run } from './program.js';

// Exit explicitly: after a stop signal a read of stdin may still be pending in the thread pool, and would keep the
// process alive. Everything was written synchronously by then.
process.exit(await run(captureArguments(process.argv.slice(2))));
