import { describe, expect, it } from 'vitest';
import { FilterKind, KINDS, kindById } from '../src/kinds.js';

describe('the kind registry', () => {
  it('has one record per id, never reusing one, with names and layouts', () => {
    const ids = KINDS.map((k) => k.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Object.values(FilterKind).every((id) => kindById(id) !== undefined)).toBe(true);
    expect(kindById(FilterKind.Partitioned)!.layout.name).toBe('partitioned');
    expect(kindById(FilterKind.Counting)!.counterWidths).toEqual([4, 8, 16]);
    expect(kindById(0)).toBeUndefined();
    expect(kindById(200)).toBeUndefined();
  });
});
