/**
 * A line chart in SVG, drawn from the numbers the sizing code gives: lines, dots (measured points) and dashed
 * guides (a target rate, a capacity), on linear or logarithmic axes. No library: a few dozen elements.
 */

export type Point = readonly [x: number, y: number];

export interface Series {
  readonly name: string;
  readonly points: readonly Point[];
  /** `line` (computed), `dots` (measured), `guide` (a dashed reference), `bounds` (measured: at most, a ▽). */
  readonly style: 'line' | 'dots' | 'guide' | 'bounds';
  readonly colour: string;
}

export interface PlotSpec {
  readonly title: string;
  readonly x: Axis;
  readonly y: Axis;
  readonly series: readonly Series[];
}

export interface Axis {
  readonly label: string;
  readonly log: boolean;
  /** How a tick's value is written. */
  readonly format: (value: number) => string;
  /** Bounds; from the data when absent. */
  readonly min?: number;
  readonly max?: number;
}

const WIDTH = 640;
const HEIGHT = 344;
const MARGIN = { left: 72, right: 16, top: 28, bottom: 68 };
/** About the width of one character of the 12 px labels (the page's sans-serif digits are 6.7 px). */
const CHAR_PX = 7;
/** Where the y axis's title is centred, and the room it takes (its 12 px line, rotated, and a gap). */
const Y_TITLE_X = 14;
const Y_TITLE_ROOM = 28;
const SVG = 'http://www.w3.org/2000/svg';

/** The chart as an `<svg>` element, with a legend; `data-series` on each drawn series names it. */
export function plot(spec: PlotSpec): SVGSVGElement {
  const svg = element('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': spec.title });
  const all = spec.series.flatMap((series) => series.points);
  const ys = scale(
    spec.y,
    all.map(([, y]) => y),
    HEIGHT - MARGIN.bottom,
    MARGIN.top,
  );
  const yTexts = tickTexts(spec.y, ys.ticks);
  // The plot starts right of the widest y tick and the y title, so the two never overlap.
  const left = Math.max(
    MARGIN.left,
    Y_TITLE_ROOM + 6 + CHAR_PX * Math.max(0, ...yTexts.map((t) => t.length)),
  );
  const xs = scale(
    spec.x,
    all.map(([x]) => x),
    left,
    WIDTH - MARGIN.right,
  );
  const xTexts = tickTexts(spec.x, xs.ticks);
  svg.append(text(spec.title, left, 16, { 'font-weight': '600' }));
  for (const [i, tick] of xs.ticks.entries()) {
    const at = xs.at(tick);
    svg.append(line(at, MARGIN.top, at, HEIGHT - MARGIN.bottom, '#e3e3e3'));
    svg.append(
      text(xTexts[i]!, at, HEIGHT - MARGIN.bottom + 16, { 'text-anchor': 'middle', 'data-tick': 'x' }),
    );
  }
  for (const [i, tick] of ys.ticks.entries()) {
    const at = ys.at(tick);
    svg.append(line(left, at, WIDTH - MARGIN.right, at, '#e3e3e3'));
    svg.append(text(yTexts[i]!, left - 6, at + 4, { 'text-anchor': 'end', 'data-tick': 'y' }));
  }
  svg.append(
    text(spec.x.label, (left + WIDTH - MARGIN.right) / 2, HEIGHT - MARGIN.bottom + 34, {
      'text-anchor': 'middle',
    }),
  );
  const middle = (MARGIN.top + HEIGHT - MARGIN.bottom) / 2;
  const yLabel = text(spec.y.label, Y_TITLE_X, middle, { 'text-anchor': 'middle', 'data-title': 'y' });
  yLabel.setAttribute('transform', `rotate(-90 ${Y_TITLE_X} ${middle})`);
  svg.append(yLabel);
  // The legend under the chart, each entry as wide as its name; an entry that would pass the right edge starts a new
  // row, and the drawing grows to hold the rows.
  let legendX = left;
  let legendY = HEIGHT - 10;
  for (const series of spec.series) {
    const width = 26 + series.name.length * CHAR_PX;
    if (legendX > left && legendX + width > WIDTH - MARGIN.right) {
      legendX = left;
      legendY += 18;
    }
    const inside = series.points.filter(([x, y]) => xs.holds(x) && ys.holds(y));
    const group = element('g', { 'data-series': series.name, 'data-points': String(inside.length) });
    if (series.style === 'dots') {
      for (const [x, y] of inside) {
        group.append(element('circle', { cx: xs.at(x), cy: ys.at(y), r: 3.5, fill: series.colour }));
      }
    } else if (series.style === 'bounds') {
      for (const [x, y] of inside) group.append(bound(xs.at(x), ys.at(y), series.colour));
    } else {
      const d = inside.map(
        ([x, y], j) => `${j === 0 ? 'M' : 'L'}${xs.at(x).toFixed(1)},${ys.at(y).toFixed(1)}`,
      );
      group.append(
        element('path', {
          d: d.join(''),
          fill: 'none',
          stroke: series.colour,
          'stroke-width': series.style === 'guide' ? 1.5 : 2.5,
          ...(series.style === 'guide' ? { 'stroke-dasharray': '6 4' } : {}),
        }),
      );
    }
    svg.append(group);
    if (series.style === 'dots') {
      svg.append(element('circle', { cx: legendX + 10, cy: legendY - 4, r: 3.5, fill: series.colour }));
    } else if (series.style === 'bounds') {
      svg.append(bound(legendX + 10, legendY - 4, series.colour));
    } else {
      svg.append(
        line(legendX, legendY - 4, legendX + 20, legendY - 4, series.colour, series.style === 'guide'),
      );
    }
    svg.append(text(series.name, legendX + 26, legendY, { 'data-legend': series.name }));
    legendX += width + 18;
  }
  svg.setAttribute('viewBox', `0 0 ${WIDTH} ${legendY + 10}`);
  return svg;
}

/**
 * The texts of an axis's ticks, in one notation: the axis's format, unless it writes some ticks in exponent form and
 * others not (0.00100 beside 1.00e-5), then every tick as the shortest exponent form (1e-3, 1e-5, 2.5e-4).
 */
export function tickTexts(axis: Axis, ticks: readonly number[]): string[] {
  const texts = ticks.map((tick) => axis.format(tick));
  const exponents = texts.filter((t) => /e/.test(t)).length;
  if (exponents === 0 || exponents === texts.length) return texts;
  return ticks.map((tick) => shortExponent(tick));
}

/** 0.001 → 1e-3, 0.00025 → 2.5e-4 (three significant digits at most, no trailing zeros, no plus sign). */
function shortExponent(value: number): string {
  if (value === 0) return '0';
  const [mantissa, exponent] = value.toExponential(2).split('e');
  return `${String(Number(mantissa))}e${Number(exponent)}`;
}

interface Scale {
  readonly ticks: readonly number[];
  at(value: number): number;
  holds(value: number): boolean;
}

function scale(axis: Axis, values: readonly number[], from: number, to: number): Scale {
  const usable = axis.log ? values.filter((v) => v > 0) : values;
  let lo = axis.min ?? Math.min(...usable);
  let hi = axis.max ?? Math.max(...usable);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) [lo, hi] = axis.log ? [1, 10] : [0, 1];
  if (lo === hi) [lo, hi] = axis.log ? [lo / 10, hi * 10] : [lo - 1, hi + 1];
  const f = axis.log ? Math.log10 : (v: number) => v;
  const [a, b] = [f(lo), f(hi)];
  const at = (value: number) => from + ((f(value) - a) / (b - a)) * (to - from);
  const holds = (value: number) =>
    Number.isFinite(f(value)) && value >= lo * (1 - 1e-9) && value <= hi * (1 + 1e-9);
  return { ticks: axis.log ? logTicks(lo, hi) : linearTicks(lo, hi), at, holds };
}

function logTicks(lo: number, hi: number): number[] {
  const first = Math.ceil(Math.log10(lo));
  const last = Math.floor(Math.log10(hi));
  const every = Math.max(1, Math.ceil((last - first + 1) / 8));
  const ticks: number[] = [];
  for (let e = first; e <= last; e += every) ticks.push(10 ** e);
  return ticks;
}

function linearTicks(lo: number, hi: number): number[] {
  const raw = (hi - lo) / 5;
  const step = 10 ** Math.floor(Math.log10(raw));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let v = Math.ceil(lo / nice) * nice; v <= hi + nice * 1e-9; v += nice)
    ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

function element<K extends keyof SVGElementTagNameMap>(
  name: K,
  attributes: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  return node;
}

/** An upper bound at (x, y): a hollow triangle pointing down, its top edge at y (the value is at most there). */
function bound(x: number, y: number, colour: string): SVGPathElement {
  return element('path', {
    d: `M${(x - 4.5).toFixed(1)},${y.toFixed(1)}L${(x + 4.5).toFixed(1)},${y.toFixed(1)}L${x.toFixed(1)},${(y + 7).toFixed(1)}Z`,
    fill: 'white',
    stroke: colour,
    'stroke-width': 1.5,
  });
}

function line(
  x1: number,
  y1: number,
  x2: number,
  y2: number,
  stroke: string,
  dashed = false,
): SVGLineElement {
  return element('line', {
    x1,
    y1,
    x2,
    y2,
    stroke,
    'stroke-width': dashed ? 1.5 : 1,
    ...(dashed ? { 'stroke-dasharray': '6 4' } : {}),
  });
}

function text(content: string, x: number, y: number, attributes: Record<string, string>): SVGTextElement {
  const node = element('text', { x, y, 'font-size': 12, fill: '#222', ...attributes });
  node.textContent = content;
  return node;
}
