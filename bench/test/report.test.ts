import { plaintextConnection } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { FULL_SCALE, QUICK_SCALE, runBenchReport, SMOKE_SCALE, scaleFor } from '../src/bench-report.ts';
import { renderChartSvg } from '../src/report-chart.ts';
import { renderMarkdown } from '../src/report-markdown.ts';
import { PNG_SIGNATURE, svgToPng } from '../src/report-png.ts';
import { BenchReport, BenchScale } from '../src/report-schema.ts';
import { defineSection } from '../src/report-section.ts';

const ctx = {
  connection: plaintextConnection(['127.0.0.1:1'], 'http://127.0.0.1:1'),
  kafkaLibsDir: '/nonexistent',
  scale: QUICK_SCALE,
  progress: () => undefined,
};

// Sections of the report's own shape: the framework is what is under test here.
const baseline = defineSection<number>({
  id: 'base',
  title: 'Raw baseline',
  method: 'Counts fast.',
  run: async () => 2000,
  figures: (v) => [{ id: 'base.rate', label: 'raw loop', value: v, unit: 'events/s', baselines: [] }],
  chart: (v) => ({ throughput: [{ label: 'raw loop', perSecond: v, raw: true }] }),
});
const ours = defineSection<{ rate: number; p50: number; p99: number }>({
  id: 'ours',
  title: 'Ours',
  method: 'Counts slower.',
  run: async () => ({ rate: 1500, p50: 4.2, p99: 61 }),
  figures: (r, c) => [
    {
      id: 'ours.rate',
      label: 'our loop',
      value: r.rate,
      unit: 'events/s',
      baselines: [{ label: 'raw loop', value: c.figure('base.rate')?.value ?? 0 }],
    },
  ],
  targets: (r) => [
    { target: 'p50 ≤ 10 ms', measured: `${r.p50} ms`, met: r.p50 <= 10 },
    { target: 'p99 ≤ 50 ms', measured: `${r.p99} ms`, met: r.p99 <= 50 },
  ],
  chart: (r) => ({
    latency: [{ label: 'our loop', p50Ms: r.p50, p99Ms: r.p99 }],
    throughput: [{ label: 'our loop', perSecond: r.rate, baseline: { label: 'raw loop', value: 2000 } }],
  }),
  details: () => 'Detail line.',
});
const broken = defineSection<number>({
  id: 'broken',
  title: 'Broken',
  method: 'Throws.',
  run: async () => {
    throw new Error('broker unreachable');
  },
  figures: () => [],
});

describe('the benchmark report', () => {
  it('runs sections in order, gives later ones the earlier figures, and keeps going past a failure', async () => {
    const report = await runBenchReport([baseline, broken, ours], ctx);
    expect(report.sections.map((s) => [s.id, s.error])).toEqual([
      ['base', null],
      ['broken', 'broker unreachable'],
      ['ours', null],
    ]);
    expect(report.sections[2]?.figures[0]?.baselines).toEqual([{ label: 'raw loop', value: 2000 }]);
    expect(report.machine.cpus).toBeGreaterThan(0);
  });

  it('renders every section, each figure next to its baseline as a ratio, and targets met or missed', async () => {
    const report = await runBenchReport([baseline, broken, ours], ctx);
    const md = renderMarkdown(report, 'chart.png', 'npx hookstream bench');
    for (const title of ['## Raw baseline', '## Broken', '## Ours', '## Targets'])
      expect(md).toContain(title);
    expect(md).toContain('| our loop | 1,500 events/s | raw loop | 2,000 | 0.75× |');
    expect(md).toContain('| p50 ≤ 10 ms | 4.2 ms | met |');
    expect(md).toContain('| p99 ≤ 50 ms | 61 ms | **missed** |');
    expect(md).toContain('| Broken | did not run: broker unreachable | **missed** |');
    expect(md).toContain('![latency percentiles and throughput](chart.png)');
    expect(md).toContain('Detail line.');
  });

  it('draws a chart with both panels, the labels and the values, and renders it to a PNG', async () => {
    const report = await runBenchReport([baseline, ours], ctx);
    const svg = renderChartSvg(
      report.sections.map((s) => s.chart),
      'title',
    );
    for (const text of [
      'Latency percentiles',
      'Throughput',
      'our loop',
      '4.2 ms',
      '61 ms',
      '1,500',
      '2,000 raw loop',
    ])
      expect(svg).toContain(text);
    const png = await svgToPng(svg);
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    // Width × height from the IHDR chunk: the SVG's size.
    expect(png.readUInt32BE(16)).toBe(1200);
    expect(png.length).toBeGreaterThan(10_000);
  });

  it('prints a report --json that parses back as its schema; a figure that is not a finite number fails it', async () => {
    const report = await runBenchReport([baseline, broken, ours], ctx);
    const json: unknown = JSON.parse(JSON.stringify(report));
    expect(BenchReport.parse(json)).toEqual(json);
    const bad = (value: number, unit = 'events/s') => ({
      ...report,
      sections: [
        { ...report.sections[0], figures: [{ id: 'base.rate', label: 'x', value, unit, baselines: [] }] },
      ],
    });
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY])
      expect(BenchReport.safeParse(bad(value)).success).toBe(false);
    // JSON turns NaN into null: that fails too.
    expect(BenchReport.safeParse(JSON.parse(JSON.stringify(bad(Number.NaN)))).success).toBe(false);
    expect(BenchReport.safeParse(bad(1, 'events per second')).success).toBe(false);
    expect(BenchReport.safeParse(bad(1)).success).toBe(true);
  });

  it('keeps every smoke load within the quick one, and skips only the warm-up drains', () => {
    expect(BenchScale.parse(SMOKE_SCALE)).toEqual(SMOKE_SCALE);
    for (const [key, value] of Object.entries(SMOKE_SCALE)) {
      const quick = QUICK_SCALE[key as keyof typeof QUICK_SCALE];
      if (typeof value === 'number') expect(value, key).toBeLessThanOrEqual(Number(quick));
      else expect(value.length, key).toBeLessThanOrEqual(Array.isArray(quick) ? quick.length : 0);
    }
    expect([FULL_SCALE.warmUpDrains, QUICK_SCALE.warmUpDrains, SMOKE_SCALE.warmUpDrains]).toEqual([1, 1, 0]);
  });

  it('shrinks the loads for --quick, --smoke and --events', () => {
    expect(scaleFor('full')).toBe(FULL_SCALE);
    expect(scaleFor('quick')).toBe(QUICK_SCALE);
    expect(scaleFor('smoke')).toBe(SMOKE_SCALE);
    expect(scaleFor('full', 500)).toMatchObject({
      ingressEvents: 500,
      pushEvents: 500,
      e2eEvents: 500,
      perfRecords: 5000,
    });
  });
});
