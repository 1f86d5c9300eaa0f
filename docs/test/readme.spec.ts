import * as standard from '@bloomkit/standard';
import { runQuickStart } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';

describe('the root README', () => {
  it('runs its usage snippet as written', async () => {
    const readme = new URL('../../README.md', import.meta.url).pathname;
    const { printed, expected } = await runQuickStart(readme, { '@bloomkit/standard': standard });
    expect(expected.length).toBe(2);
    expect(printed).toEqual(expected);
  });
});
