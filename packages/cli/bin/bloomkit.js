#!/usr/bin/env node
// The `bloomkit` command: the built program, dist/bin.js. It is a file of its own so that installing the workspace
// links the command before the first build has made dist/ (pnpm cannot link a bin whose file is missing).
import '../dist/bin.js';
