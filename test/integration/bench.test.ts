import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SECTIONS, PNG_SIGNATURE } from '@hookstream/bench';
import { createKafka } from '@hookstream/kafka';
import { SubscriberCatalog } from '@hookstream/subscribers';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { endpoints } from '../support/stack.ts';

// The benchmark is not a test: these only check that it runs end to end on a tiny load.
describe('hookstream bench ingress', () => {
  it('runs on a tiny load and reports every run as JSON', async () => {
    const result = await runCli(['bench', 'ingress', '--events', '100', '--json'], process.env, 120_000);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      rows: { events: number; errors: number; eventsPerSecond: number }[];
      raw: { events: number };
      singleRatio: number;
    };
    expect(report.rows).toHaveLength(5);
    for (const row of report.rows) expect([row.events, row.errors]).toEqual([100, 0]);
    expect(report.raw.events).toBe(100);
    expect(report.singleRatio).toBeGreaterThan(0);
  }, 150_000);

  it('refuses an unknown target with its usage', async () => {
    const result = await runCli(['bench', 'pusher'], process.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('hookstream bench ingress');
  });
});

describe('hookstream bench (the full report)', () => {
  it('runs every section on a tiny load and writes the Markdown report and the PNG chart', async () => {
    const out = await mkdtemp(join(tmpdir(), 'hookstream-bench-report-'));
    const result = await runCli(['bench', '--quick', '--out', out, '--json'], process.env, 240_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('[bench] — End to end');

    const report = JSON.parse(result.stdout) as {
      sections: {
        id: string;
        error: string | null;
        figures: { id: string; value: number; baselines: { label: string; value: number }[] }[];
      }[];
    };
    expect(report.sections.map((s) => s.id)).toEqual(DEFAULT_SECTIONS.map((s) => s.id));
    for (const s of report.sections) {
      expect(s.error, s.id).toBeNull();
      expect(s.figures.length, s.id).toBeGreaterThan(0);
    }
    // Every event published at half load reached the receiver, so latency was measured on all of them.
    const e2e = report.sections.find((s) => s.id === 'e2e')?.figures.find((f) => f.id === 'e2e.half.p50');
    expect(e2e?.value).toBeGreaterThan(0);
    // Issue 30's ratios, each beside its baseline from the same run.
    const figure = (section: string, id: string) =>
      report.sections.find((s) => s.id === section)?.figures.find((f) => f.id === id);
    expect(figure('ingress', 'ingress.single.rate')?.baselines[0]?.label).toContain('bare node:http server');
    expect(figure('ingress', 'ingress.batch.rate')?.baselines[0]?.label).toBe('raw kafkajs, same headers');
    expect(figure('batch', 'batch.20ms.rate')?.baselines[0]?.value).toBeGreaterThan(0);
    expect(figure('pull', 'pull.rate')?.baselines[0]?.value).toBeGreaterThan(0);
    expect(figure('api', 'api.put.p99')?.value).toBeGreaterThan(0);
    expect(figure('reconcile', 'reconcile.rss')?.value).toBeGreaterThan(0);

    const files = await readdir(out);
    const md = files.find((f) => /^bench-.*\.md$/.test(f));
    const png = files.find((f) => /^bench-.*\.png$/.test(f));
    expect(files).toEqual(expect.arrayContaining(['latest.md', 'latest.png']));
    const markdown = await readFile(join(out, md ?? 'missing.md'), 'utf8');
    for (const section of DEFAULT_SECTIONS) expect(markdown).toContain(`## ${section.title}`);
    expect(markdown).toContain('## Targets');
    expect(markdown).toContain(`](${png})`);
    for (const target of [
      'ingress ≥ 10,000 events/s',
      'ingress, one event per request ≥ 0.8× a bare node:http server',
      'ingress batches ≥ 0.50× raw kafkajs with the same headers',
      'push ≥ 0.70× a plain undici loop',
      'tracing ≤ 10 % CPU per delivery',
      'end-to-end p99 ≤ 25 ms at half load',
      'batched ≥ 5× unbatched behind a 20 ms endpoint',
      'API PUT p99 ≤ 100 ms',
    ])
      expect(markdown).toContain(`| ${target} | `);

    const image = await readFile(join(out, png ?? 'missing.png'));
    expect(image.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    // A chart with text and bars, not an empty canvas.
    expect((await stat(join(out, png ?? ''))).size).toBeGreaterThan(20_000);
  }, 300_000);
});

describe('hookstream bench --fleet', () => {
  it('refuses a fleet size out of bounds, or without --fleet, with its usage', async () => {
    for (const args of [
      ['--fleet', '--fleet-subscribers', '0'],
      ['--fleet-subscribers', '20'],
      ['--only', 'fleet'],
    ]) {
      const result = await runCli(['bench', ...args], process.env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('--fleet-subscribers');
    }
  });
});

describe('hookstream bench api', () => {
  it('measures every route on a tiny catalog of its own, every answer 2xx, and leaves none of it behind', async () => {
    const result = await runCli(
      ['bench', 'api', '--subscribers', '20', '--requests', '5', '--writes', '3', '--json'],
      process.env,
      120_000,
    );
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Record<
      string,
      { count: number; errors: number; p99Ms: number }
    > & {
      subscribers: number;
    };
    expect(report.subscribers).toBe(20);
    for (const route of ['list', 'listOtherPages', 'get', 'put']) {
      expect(report[route]?.errors, route).toBe(0);
      expect(report[route]?.count, route).toBe(route === 'put' ? 3 : 5);
      expect(report[route]?.p99Ms, route).toBeGreaterThan(0);
    }
    const tenant = /tenant (bench-api-[0-9a-f]{8})/.exec(result.stderr)?.[1];
    expect(tenant).toBeDefined();
    const left = await new SubscriberCatalog(
      createKafka({ brokers: endpoints.brokers, clientId: 'bench-api-check', quiet: true }),
    ).read();
    expect([...left.subscribers.keys()].filter((n) => n.startsWith(`${tenant}-`))).toEqual([]);
  }, 150_000);
});
