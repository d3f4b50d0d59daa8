import { formatNumber } from './report-markdown.ts';
import type { ChartContribution } from './report-section.ts';

const WIDTH = 1200;
const LABEL_X = 16;
const PLOT_X = 400;
const PLOT_W = 560;
const BAR = 14;
const ROW = 2 * BAR + 14;
const COLORS = {
  p50: '#2b6cb0',
  p99: '#dd6b20',
  ours: '#2f855a',
  baseline: '#a0aec0',
  grid: '#e2e8f0',
  text: '#1a202c',
};
const FONT = 'font-family="DejaVu Sans" fill="#1a202c"';

const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const text = (x: number, y: number, s: string, size = 12, anchor = 'start', weight = 'normal') =>
  `<text x="${x}" y="${y}" font-size="${size}" text-anchor="${anchor}" font-weight="${weight}" ${FONT}>${esc(s)}</text>`;
const rect = (x: number, y: number, w: number, h: number, fill: string) =>
  `<rect x="${x}" y="${y}" width="${Math.max(w, 1).toFixed(1)}" height="${h}" fill="${fill}"/>`;

function legend(x: number, y: number, items: readonly [string, string][]): string {
  let at = x;
  return items
    .map(([label, color]) => {
      const part = `${rect(at, y - 10, 12, 12, color)}${text(at + 18, y, label)}`;
      at += 30 + label.length * 7;
      return part;
    })
    .join('');
}

/** Decade ticks from 0.1 ms up to the first power of ten above the largest value. */
function latencyPanel(
  items: NonNullable<ChartContribution['latency']>,
  top: number,
): { svg: string; height: number } {
  const max = Math.max(1, ...items.flatMap((i) => [i.p50Ms, i.p99Ms]));
  const lo = -1;
  const hi = Math.ceil(Math.log10(max * 1.01));
  const x = (v: number) => PLOT_X + ((Math.log10(Math.max(v, 0.1)) - lo) / (hi - lo)) * PLOT_W;
  const plotTop = top + 48;
  const height = 48 + items.length * ROW + 40;
  const parts = [
    text(LABEL_X, top + 20, 'Latency percentiles (milliseconds, log scale)', 16, 'start', 'bold'),
    legend(PLOT_X + 260, top + 22, [
      ['p50', COLORS.p50],
      ['p99', COLORS.p99],
    ]),
  ];
  for (let d = lo; d <= hi; d++) {
    const gx = x(10 ** d);
    parts.push(
      `<line x1="${gx}" y1="${plotTop - 6}" x2="${gx}" y2="${plotTop + items.length * ROW}" stroke="${COLORS.grid}"/>`,
    );
    parts.push(text(gx, plotTop + items.length * ROW + 16, formatNumber(10 ** d), 11, 'middle'));
  }
  parts.push(text(PLOT_X + PLOT_W / 2, plotTop + items.length * ROW + 34, 'ms', 12, 'middle'));
  items.forEach((item, i) => {
    const y = plotTop + i * ROW;
    parts.push(text(LABEL_X, y + BAR + 4, item.label.slice(0, 58)));
    for (const [k, v, dy] of [
      ['p50', item.p50Ms, 0],
      ['p99', item.p99Ms, BAR],
    ] as const) {
      parts.push(rect(PLOT_X, y + dy, x(v) - PLOT_X, BAR - 2, COLORS[k]));
      parts.push(text(x(v) + 6, y + dy + BAR - 3, `${formatNumber(v)} ms`, 11));
    }
  });
  return { svg: parts.join(''), height };
}

/** Log scale: Kafka's own tools run an order of magnitude above an HTTP hop, and both must show. */
function throughputPanel(
  items: NonNullable<ChartContribution['throughput']>,
  top: number,
): { svg: string; height: number } {
  const values = items.flatMap((i) => [i.perSecond, i.baseline?.value ?? 0]).filter((v) => v > 0);
  const lo = Math.floor(Math.log10(Math.max(1, Math.min(...values, 1e9))));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(10, ...values) * 1.01)));
  const x = (v: number) => PLOT_X + ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo)) * PLOT_W;
  const plotTop = top + 48;
  const height = 48 + items.length * ROW + 40;
  const parts = [
    text(LABEL_X, top + 20, 'Throughput (per second, log scale)', 16, 'start', 'bold'),
    legend(PLOT_X + 260, top + 22, [
      ['hookstream', COLORS.ours],
      ['raw baseline, same run', COLORS.baseline],
    ]),
  ];
  for (let d = lo; d <= hi; d++) {
    const gx = x(10 ** d);
    parts.push(
      `<line x1="${gx}" y1="${plotTop - 6}" x2="${gx}" y2="${plotTop + items.length * ROW}" stroke="${COLORS.grid}"/>`,
    );
    parts.push(text(gx, plotTop + items.length * ROW + 16, formatNumber(10 ** d), 11, 'middle'));
  }
  parts.push(
    text(
      PLOT_X + PLOT_W / 2,
      plotTop + items.length * ROW + 34,
      'events / records / requests per second',
      12,
      'middle',
    ),
  );
  items.forEach((item, i) => {
    const y = plotTop + i * ROW;
    parts.push(text(LABEL_X, y + BAR + 4, item.label.slice(0, 58)));
    parts.push(
      rect(PLOT_X, y, x(item.perSecond) - PLOT_X, BAR - 2, item.raw ? COLORS.baseline : COLORS.ours),
    );
    parts.push(text(x(item.perSecond) + 6, y + BAR - 3, formatNumber(item.perSecond), 11));
    if (item.baseline) {
      parts.push(rect(PLOT_X, y + BAR, x(item.baseline.value) - PLOT_X, BAR - 2, COLORS.baseline));
      parts.push(
        text(
          x(item.baseline.value) + 6,
          y + 2 * BAR - 3,
          `${formatNumber(item.baseline.value)} ${item.baseline.label}`,
          11,
        ),
      );
    }
  });
  return { svg: parts.join(''), height };
}

/** The report's chart as SVG: latency percentiles above, throughput next to baselines below. */
export function renderChartSvg(contributions: readonly ChartContribution[], title: string): string {
  const latency = contributions.flatMap((c) => c.latency ?? []);
  const throughput = contributions.flatMap((c) => c.throughput ?? []);
  const head = 40;
  const first = latencyPanel(latency, head);
  const second = throughputPanel(throughput, head + first.height + 10);
  const height = head + first.height + 10 + second.height + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    text(LABEL_X, 26, title, 18, 'start', 'bold'),
    first.svg,
    second.svg,
    '</svg>',
  ].join('\n');
}
