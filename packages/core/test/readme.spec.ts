import { runQuickStart } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import * as core from '../src/index.js';

describe('README Quick start', () => {
  it('runs and prints what its comments say', async () => {
    const readme = new URL('../README.md', import.meta.url).pathname;
    const { printed, expected } = await runQuickStart(readme, { '@bloomkit/core': core });
    expect(expected.length).toBe(5);
    expect(printed).toEqual(expected);
  });
});
