import * as standard from '@bloomkit/standard';
import { runQuickStart } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import * as pkg from '../src/index.js';

describe('README Quick start', () => {
  it('hides the flagged good URLs, keeps the bad ones, and prints what its comments say', async () => {
    const { printed, expected } = await runQuickStart(new URL('../README.md', import.meta.url).pathname, {
      '@bloomkit/exceptions': pkg,
      '@bloomkit/standard': standard,
    });
    expect(expected.length).toBe(5);
    expect(printed).toEqual(expected);
  });
});
