import * as readline from 'node:readline';
import * as stream from 'node:stream';
import { runQuickStart } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import * as pkg from '../src/index.js';

describe('README Quick start', () => {
  it('deduplicates its stream of lines and prints what its comments say', async () => {
    const { printed, expected } = await runQuickStart(new URL('../README.md', import.meta.url).pathname, {
      '@bloomkit/scalable': pkg,
      'node:readline': readline,
      'node:stream': stream,
    });
    expect(expected.length).toBe(3);
    expect(printed).toEqual(expected);
  });
});
