import { describe, expect, it } from 'vitest';
import { formatIngressBench } from '../src/format.ts';
import { quantile, summarize } from '../src/stats.ts';

describe('bench statistics', () => {
  it('takes quantiles by nearest rank', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(sorted, 0.5)).toBe(50);
    expect(quantile(sorted, 0.99)).toBe(99);
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([], 0.5)).toBe(0);
  });

  it('summarizes a run into events/s and latency', () => {
    const row = summarize('run', 4, 1, [3, 1, 2], 3000, 0, 1500);
    expect(row).toMatchObject({ eventsPerSecond: 2000, seconds: 1.5, p50Ms: 2, p99Ms: 3 });
  });

  it('prints every run and the ratios', () => {
    const row = summarize('HTTP', 8, 1, [1], 1000, 0, 1000);
    const raw = summarize('raw kafkajs sendBatch', 2, 500, [1], 4000, 0, 1000);
    const bareHttp = summarize('bare node:http server (parse, 202)', 128, 1, [1], 2000, 0, 1000);
    const text = formatIngressBench({
      topic: 't',
      rows: [row],
      raw,
      rawWithHeaders: raw,
      singleRatio: 0.25,
      bestRatio: 0.25,
      bestRatioSameHeaders: 0.25,
      bareHttp,
    });
    expect(text).toContain('raw kafkajs sendBatch');
    expect(text).toContain('0.25 with one event per request');
    expect(text).toContain('0.50 of a bare node:http server');
  });
});
