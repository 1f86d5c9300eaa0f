import { describe, expect, it } from 'vitest';
import { bitsPerKeySpec, fprSpec, renderSvg, throughputSpec } from '../src/charts.js';
import { aggregate } from '../src/report.js';
import { measurement } from './fixtures.js';

describe('charts', () => {
  const rows = aggregate([
    measurement('bloomkit-standard', { batchHasOps: 2e6 }),
    measurement('bloomfilter', { addOps: 2e6, measuredFpr: 0.0101 }),
    measurement('set', { measuredFpr: 0, memoryBitsPerKey: 300 }),
  ]);

  it('render the three charts to SVG with a charting library, naming the contenders', async () => {
    for (const spec of [throughputSpec(rows), fprSpec(rows), bitsPerKeySpec(rows)]) {
      const svg = await renderSvg(spec);
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg).toContain('bloomkit standard');
      expect(svg).toContain('bloomfilter');
    }
  });
});
