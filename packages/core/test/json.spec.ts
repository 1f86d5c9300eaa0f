import { describe, expect, it } from 'vitest';
import { FormatError, UnsupportedVersionError } from '../src/errors.js';
import { fromFilterJson, MAX_JSON_FILE_BYTES, toFilterJson } from '../src/json.js';

describe('the JSON form', () => {
  it('holds the file, reads back from the object or its text, and checks the kind', () => {
    const file = Uint8Array.from([66, 76, 77, 75, 1, 2, 3]);
    const json = toFilterJson('w', 'standard', 1, file);
    expect(json).toEqual({ format: 'bloomkit', version: 1, kind: 'standard', base64: 'QkxNSwECAw==' });
    expect(fromFilterJson('w', json, 'standard')).toEqual(file);
    expect(fromFilterJson('w', JSON.stringify(json), 'standard')).toEqual(file);
    expect(() => fromFilterJson('w', json, 'blocked')).toThrow(/holds a standard filter, expected blocked/);
    expect(() => fromFilterJson('w', '{not json', 'standard')).toThrow(/not JSON/);
    expect(() => fromFilterJson('w', null, 'standard')).toThrow(/expected \{ format: 'bloomkit'/);
    expect(() => fromFilterJson('w', { format: 'other', base64: '' }, 'standard')).toThrow(FormatError);
    expect(MAX_JSON_FILE_BYTES).toBe(402_653_166);
  });

  it('refuses a newer or malformed version, a version its bytes contradict, and fields whose reads throw', () => {
    const file = Uint8Array.from([66, 76, 77, 75, 1, 2, 3]);
    const json = toFilterJson('w', 'standard', 1, file);
    expect(() => fromFilterJson('w', { ...json, version: 99 }, 'standard')).toThrow(UnsupportedVersionError);
    expect(() => fromFilterJson('w', { ...json, version: 99 }, 'standard')).toThrow(
      /format version 99, newer/,
    );
    for (const version of [0, 1.5, '1', undefined, -1]) {
      expect(() => fromFilterJson('w', { ...json, version }, 'standard')).toThrow(
        /the JSON's version must be/,
      );
    }
    const other = toFilterJson('w', 'standard', 1, Uint8Array.from([66, 76, 77, 75, 2, 2, 3]));
    expect(() => fromFilterJson('w', other, 'standard')).toThrow(/says format version 1, its bytes say 2/);
    const hostile = {
      format: 'bloomkit',
      get base64(): string {
        throw new Error('boom');
      },
    };
    expect(() => fromFilterJson('w', hostile, 'standard')).toThrow(FormatError);
    expect(() => fromFilterJson('w', hostile, 'standard')).toThrow(
      "reading the JSON's fields threw: Error: boom",
    );
  });

  it('checks every base64 character before allocating the bytes: 40 MB of invalid text fails at character 0', () => {
    const text = `!${'A'.repeat(40_000_000 - 1)}`;
    const before = process.memoryUsage().arrayBuffers;
    expect(() =>
      fromFilterJson('w', { format: 'bloomkit', version: 1, kind: 'standard', base64: text }, 'standard'),
    ).toThrow('w: invalid base64 character at 0');
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(10_000_000);
  });
});
