import { runQuickStart } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import * as pkg from '../src/index.js';

describe('README Quick start', () => {
  it('runs and prints what its comments say', async () => {
    const { printed, expected } = await runQuickStart(new URL('../README.md', import.meta.url).pathname, {
      '@bloomkit/cuckoo': pkg,
    });
    expect(expected.length).toBeGreaterThan(6);
    expect(printed).toEqual(expected);
  });
});
