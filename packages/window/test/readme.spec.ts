import { runQuickStart } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import * as pkg from '../src/index.js';

describe('README Quick start', () => {
  it('keeps the last window of a long stream, forgets the old keys, and prints what its comments say', async () => {
    const { printed, expected } = await runQuickStart(new URL('../README.md', import.meta.url).pathname, {
      '@bloomkit/window': pkg,
    });
    expect(expected.length).toBe(5);
    expect(printed).toEqual(expected);
  });
});
