import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchReport, DEFAULT_SECTIONS, PNG_SIGNATURE } from '@hookstream/bench';
import { createKafka } from '@hookstream/kafka';
import { SubscriberCatalog } from '@hookstream/subscribers';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../support/cli.ts';
import { endpoints } from '../support/stack.ts';

// The benchmarks are not tests: this only checks that `hookstream bench --smoke` runs every
// section and that its report is well formed. Shape, never speed: no figure is compared with a
// threshold (the figures are `npm run bench`'s). In test/exclusive: it loads both cores for a
// minute, and timing-sensitive files beside it would suffer.

/** Every section of the report, in its order: the defaults, then the fleet that --smoke adds. */
const SECTIONS = [...DEFAULT_SECTIONS.map((s) => s.id), 'fleet'];

/** Figures each section must report at any load (a scale adds more rows, never fewer). */
const REQUIRED_FIGURES: Record<string, readonly string[]> = {
  'kafka-perf': ['kafka.producer.rate', 'kafka.producer.p50', 'kafka.producer.p99', 'kafka.consumer.rate'],
  ingress: [
    'ingress.single.rate',
    'ingress.single.p99',
    'ingress.single.cpu',
    'ingress.single.memory',
    'ingress.batch.rate',
    'ingress.batch.p99',
    'ingress.batch.cpu',
    'ingress.batch.memory',
  ],
  push: [
    'push.rate',
    'push.cpu',
    'push.memory',
    'push.https.rate',
    'push.https.cpu',
    'push.https.memory',
    'push.tracing.cpu',
  ],
  e2e: ['e2e.max.rate', 'e2e.max.cpu', 'e2e.max.memory', 'e2e.half.p50', 'e2e.half.p99'],
  limiter: ['limiter.1.max', 'limiter.1.used'],
  retry: ['retry.tier1.p99', 'retry.tier2.p99'],
  api: ['api.list.p50', 'api.list.p99', 'api.list.cursor.p99', 'api.get.p99', 'api.put.p50', 'api.put.p99'],
  batch: ['batch.20ms.rate', 'batch.20ms.cpu', 'batch.20ms.memory'],
  pull: ['pull.rate', 'pull.cpu', 'pull.memory'],
  reconcile: ['reconcile.seconds', 'reconcile.rss'],
  fleet: ['fleet.rss.joined', 'fleet.rss.idle', 'fleet.rss.peak', 'fleet.join.seconds', 'fleet.idle.cpu'],
};

/** The unit a figure's id implies; the first rule that matches decides. */
const UNIT_RULES: readonly (readonly [RegExp, readonly string[]])[] = [
  [/\.rate$/, ['events/s', 'records/s', 'deliveries/s']],
  [/\.p(50|99)$/, ['ms']],
  [/^fleet\.idle\.cpu$/, ['% of a core']],
  [/\.cpu$/, ['µs']],
  // Memory per request in flight: peak heap growth over a drain ÷ its requests in flight.
  [/\.memory$/, ['KiB']],
  [/^limiter\.\d\.max$/, ['requests']],
  [/^limiter\.\d\.used$/, ['%']],
  [/\.seconds$/, ['s']],
  [/\.rss(\.|$)/, ['MiB']],
];

/** Baselines issue 30's ratios are taken against: the label of each figure's first baseline. */
const FIRST_BASELINES: Record<string, RegExp> = {
  'ingress.single.rate': /^bare node:http server/,
  'ingress.batch.rate': /^raw kafkajs, same headers$/,
  'push.rate': /^plain undici loop$/,
  'push.cpu': /^plain undici loop, per POST$/,
  'push.https.rate': /^plain undici loop, https, same body size$/,
  'push.https.cpu': /^plain undici loop, https, per POST$/,
  'batch.20ms.rate': /^the same, unbatched/,
  'pull.rate': /^push draining the same backlog$/,
};

/** Targets issue 30 set, each a row of the report whatever its verdict. */
const REQUIRED_TARGETS = [
  'ingress ≥ 10,000 events/s',
  'ingress, one event per request ≥ 0.8× a bare node:http server',
  'ingress batches ≥ 0.50× raw kafkajs with the same headers',
  'push ≥ 0.70× a plain undici loop',
  'tracing ≤ 10 % CPU per delivery',
  'end-to-end p99 ≤ 25 ms at half load',
  'batched ≥ 5× unbatched behind a 20 ms endpoint',
  'API PUT p99 ≤ 100 ms',
];

/** Raw results, as far as they say each section did all its work (counts, not speed). */
const Latency = z.object({ count: z.number().int() });
const RESULTS: Record<string, z.ZodType> = {
  'kafka-perf': z.object({
    producer: z.object({ records: z.number().int().positive() }),
    consumer: z.object({ records: z.number().int().positive() }),
  }),
  ingress: z.object({
    rows: z.array(z.object({ events: z.number().int().positive(), errors: z.literal(0) })).length(5),
    raw: z.object({ events: z.number().int().positive() }),
  }),
  e2e: z
    .object({
      maxLoad: z.object({ events: z.number().int().positive(), delivered: z.number().int() }),
      halfLoad: z.object({
        events: z.number().int().positive(),
        delivered: z.number().int(),
        latency: Latency,
      }),
    })
    .refine((r) => r.maxLoad.delivered === r.maxLoad.events, 'every event at maximum load arrived')
    .refine(
      (r) => r.halfLoad.delivered === r.halfLoad.events && r.halfLoad.latency.count === r.halfLoad.events,
      'every paced event arrived and was timed',
    ),
  limiter: z
    .array(z.object({ events: z.number().int(), received: z.number().int() }))
    .min(1)
    .refine((runs) => runs.every((r) => r.received >= r.events), 'every event of each run arrived'),
  retry: z.object({
    tiers: z.array(z.object({ tier: z.number().int(), records: z.number().int().positive() })).length(2),
  }),
  api: z.object(
    Object.fromEntries(
      ['list', 'listOtherPages', 'get', 'put'].map((route) => [
        route,
        z.object({ count: z.number().int().positive(), errors: z.literal(0) }),
      ]),
    ),
  ),
  reconcile: z.object({ exitCode: z.number().int().min(0).max(1) }),
  fleet: z.object({
    fleet: z
      .object({
        prefix: z.string().min(1),
        eventsTopic: z.string().min(1),
        join: z.object({
          groups: z.number().int().positive(),
          joined: z.number().int(),
          shared: z.literal(0),
        }),
        // Tier and DLQ topics are made when a subscriber starts: every one exists before any load,
        // and the dead subscribers' failures make none.
        ownTopics: z.object({
          idle: z.object({ topics: z.number().int().positive(), partitions: z.number().int().positive() }),
          end: z.object({ topics: z.number().int().positive(), partitions: z.number().int().positive() }),
        }),
        load: z.object({
          published: z.number().int().positive(),
          publishErrors: z.literal(0),
          all: z.object({ delivered: z.number() }),
        }),
        dead: z.object({ doomedDelivered: z.literal(0) }),
        cleanup: z.object({
          fleet: z.literal('stopped'),
          recordsLeft: z.literal(0),
          topicsLeft: z.literal(0),
          groupsLeft: z.literal(0),
          errors: z.array(z.string()).length(0),
        }),
      })
      .refine((f) => f.join.joined === f.join.groups, 'every group joined')
      .refine((f) => f.ownTopics.idle.topics === f.ownTopics.end.topics, 'no topic made at a failure')
      .refine((f) => f.load.all.delivered === f.load.published, 'every event under load arrived'),
  }),
};

/** What a section did against what the scale asked: [done, asked]. */
const LOADS: Record<string, (result: unknown, scale: BenchReport['scale']) => readonly [unknown, number]> = {
  'kafka-perf': (r, scale) => [
    z.object({ producer: z.object({ records: z.number() }) }).safeParse(r).data?.producer.records,
    scale.perfRecords,
  ],
  ingress: (r, scale) => [
    z.object({ raw: z.object({ events: z.number() }) }).safeParse(r).data?.raw.events,
    scale.ingressEvents,
  ],
  e2e: (r, scale) => [
    z.object({ maxLoad: z.object({ events: z.number() }) }).safeParse(r).data?.maxLoad.events,
    scale.e2eEvents,
  ],
  retry: (r, scale) => [
    z
      .object({ tiers: z.array(z.object({ records: z.number() })) })
      .safeParse(r)
      .data?.tiers.every((t) => t.records === scale.retryRecords)
      ? 1
      : 0,
    1,
  ],
};

interface Written {
  readonly files: readonly string[];
  readonly markdown: string;
  readonly markdownFile: string;
  readonly pngFile: string;
  readonly png: Buffer;
}

/** What is wrong with a report and its files; empty when well formed. Pure, so it can be shown to fail. */
function shapeProblems(json: unknown, written: Written): string[] {
  const problems: string[] = [];
  const parsed = BenchReport.safeParse(json);
  if (!parsed.success) return [`--json does not match BenchReport: ${z.prettifyError(parsed.error)}`];
  const report = parsed.data;
  const ids = report.sections.map((s) => s.id);
  if (ids.join() !== SECTIONS.join()) problems.push(`sections ${ids.join()}, expected ${SECTIONS.join()}`);
  for (const s of report.sections) {
    if (s.error !== null) problems.push(`${s.id} failed: ${s.error}`);
    const figureIds = s.figures.map((f) => f.id);
    for (const id of REQUIRED_FIGURES[s.id] ?? [])
      if (!figureIds.includes(id)) problems.push(`${s.id}: no ${id}`);
    for (const f of s.figures) {
      if (!f.id.startsWith(`${s.id === 'kafka-perf' ? 'kafka' : s.id}.`)) problems.push(`${f.id} in ${s.id}`);
      const units = UNIT_RULES.find(([pattern]) => pattern.test(f.id))?.[1];
      if (units === undefined) problems.push(`${f.id}: no unit rule (add one here)`);
      else if (!units.includes(f.unit)) problems.push(`${f.id} in ${f.unit}, expected ${units.join(' or ')}`);
      if (!(f.value >= 0)) problems.push(`${f.id} = ${f.value}`);
      const first = FIRST_BASELINES[f.id];
      const baseline = f.baselines[0];
      if (first && !(baseline && first.test(baseline.label) && baseline.value > 0))
        problems.push(`${f.id}: first baseline ${JSON.stringify(baseline)}, expected ${first}`);
    }
    // Kafka's perf tests are the baselines of others and have no target of their own.
    if (s.id !== 'kafka-perf' && s.targets.length === 0) problems.push(`${s.id}: no target rows`);
    const raw = RESULTS[s.id]?.safeParse(s.result);
    if (raw && !raw.success) problems.push(`${s.id} result: ${z.prettifyError(raw.error)}`);
    // The loads the scale asked for, all of them.
    const counts = LOADS[s.id]?.(s.result, report.scale);
    if (counts && counts[0] !== counts[1]) problems.push(`${s.id}: ${counts[0]} done of ${counts[1]}`);
  }

  const { files, markdown, markdownFile, pngFile, png } = written;
  for (const f of ['latest.md', 'latest.png', markdownFile, pngFile])
    if (!files.includes(f)) problems.push(`${f} not written`);
  for (const s of report.sections)
    if (!markdown.includes(`\n## ${s.title}\n`)) problems.push(`markdown: no section ${s.title}`);
  if (!markdown.includes('\n## Targets\n')) problems.push('markdown: no targets table');
  for (const t of REQUIRED_TARGETS)
    if (!markdown.includes(`\n| ${t} | `)) problems.push(`markdown: no target ${t}`);
  if (!markdown.includes(`](${pngFile})`)) problems.push('markdown: no chart link');
  // Every target is a row of the table with its verdict.
  for (const t of report.sections.flatMap((s) => s.targets)) {
    const verdict = t.met ? 'met' : '**missed**';
    const row = `| ${t.target.replaceAll('|', '\\|')} | ${t.measured.replaceAll('|', '\\|')} | ${verdict} |`;
    if (!markdown.includes(row)) problems.push(`markdown: no row "${row}"`);
  }
  if (!png.subarray(0, 8).equals(Buffer.from(PNG_SIGNATURE))) problems.push('chart: not a PNG');
  // A chart with text and bars, not an empty canvas.
  if (png.length < 20_000) problems.push(`chart: ${png.length} bytes`);
  return problems;
}

/** Topics and groups named as the benchmarks name theirs (bench-topic.ts, the sections). */
async function benchResources(): Promise<string[]> {
  const admin = createKafka({
    brokers: endpoints.brokers,
    clientId: 'bench-smoke-check',
    quiet: true,
  }).admin();
  await admin.connect();
  try {
    const names = [
      ...(await admin.listTopics()).map((t) => `topic ${t}`),
      ...(await admin.listGroupIds('')).map((g) => `group ${g}`),
    ];
    return names.filter((n) => /bench|lateness/.test(n)).sort();
  } finally {
    await admin.disconnect();
  }
}

describe('hookstream bench --smoke', () => {
  let out = '';
  let json: unknown;
  let written: Written | undefined;

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('runs every section on the smallest load and writes a well-formed report, JSON, Markdown and chart', async () => {
    out = await mkdtemp(join(tmpdir(), 'hookstream-bench-smoke-'));
    const before = await benchResources();
    const started = performance.now();
    const result = await runCli(['bench', '--smoke', '--out', out, '--json'], process.env, 170_000);
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    process.stderr.write(`[bench-smoke] hookstream bench --smoke took ${seconds} s\n`);
    expect(result.code, result.stderr).toBe(0);
    json = JSON.parse(result.stdout);

    const files = await readdir(out);
    const markdownFile = files.find((f) => /^bench-.*\.md$/.test(f)) ?? 'missing.md';
    const pngFile = files.find((f) => /^bench-.*\.png$/.test(f)) ?? 'missing.png';
    written = {
      files,
      markdownFile,
      pngFile,
      markdown: await readFile(join(out, markdownFile), 'utf8').catch(() => ''),
      png: await readFile(join(out, pngFile)).catch(() => Buffer.alloc(0)),
    };
    expect(shapeProblems(json, written)).toEqual([]);

    // What the sections say they deleted, checked on the broker too: the API bench's tenant and
    // the fleet's subscribers, topics and groups (the other sections delete their own topics).
    const report = BenchReport.parse(json);
    const fleet = RESULTS.fleet?.parse(report.sections.find((s) => s.id === 'fleet')?.result) as {
      fleet: { prefix: string; eventsTopic: string };
    };
    const tenant = /tenant (bench-api-[0-9a-f]{8})/.exec(result.stderr)?.[1];
    expect(tenant).toBeDefined();
    const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'bench-smoke-check', quiet: true });
    const catalog = await new SubscriberCatalog(kafka).read();
    const left = (names: Iterable<string>) =>
      [...names].filter((n) => n.startsWith(`${tenant}-`) || n.startsWith(fleet.fleet.prefix));
    expect(left(catalog.subscribers.keys())).toEqual([]);
    expect(left(catalog.registrations.keys())).toEqual([]);
    const admin = kafka.admin();
    await admin.connect();
    try {
      const topics = await admin.listTopics();
      expect(topics.filter((t) => t === fleet.fleet.eventsTopic || t.includes(fleet.fleet.prefix))).toEqual(
        [],
      );
      expect(await admin.listGroupIds(`hookstream.sub.${fleet.fleet.prefix}`)).toEqual([]);
    } finally {
      await admin.disconnect();
    }
    // Every section removes what it made: no topic or group of a benchmark's naming that was not
    // there before the run is left (nothing else runs beside an exclusive file).
    const after = await benchResources();
    expect(after.filter((n) => !before.includes(n))).toEqual([]);
  }, 180_000);

  it('fails a report with a section, a figure, a unit, a verdict or a file missing', () => {
    if (written === undefined) throw new Error('the run above wrote nothing');
    const report = BenchReport.parse(json);
    const w = written;
    const broken = (change: (r: ReturnType<typeof structuredClone<BenchReport>>) => unknown, files = w) =>
      shapeProblems(change(structuredClone(report)), files);
    expect(broken((r) => ({ ...r, sections: r.sections.filter((s) => s.id !== 'pull') }))).toContain(
      `sections ${SECTIONS.filter((id) => id !== 'pull').join()}, expected ${SECTIONS.join()}`,
    );
    const withFigure = (r: BenchReport, patch: Record<string, unknown>) => ({
      ...r,
      sections: r.sections.map((s) =>
        s.id === 'push' ? { ...s, figures: s.figures.map((f, i) => (i === 0 ? { ...f, ...patch } : f)) } : s,
      ),
    });
    expect(broken((r) => withFigure(r, { value: null })).join()).toMatch(/does not match BenchReport/);
    expect(broken((r) => withFigure(r, { unit: 'ms' }))).toContain(
      'push.rate in ms, expected events/s or records/s or deliveries/s',
    );
    expect(broken((r) => ({ ...r, sections: r.sections.map((s) => ({ ...s, targets: [] })) }))).toContain(
      'api: no target rows',
    );
    const flipped = (r: BenchReport) => ({
      ...r,
      sections: r.sections.map((s) => ({ ...s, targets: s.targets.map((t) => ({ ...t, met: !t.met })) })),
    });
    expect(broken(flipped).some((p) => p.startsWith('markdown: no row'))).toBe(true);
    expect(broken((r) => r, { ...w, files: w.files.filter((f) => f !== 'latest.png') })).toContain(
      'latest.png not written',
    );
    expect(broken((r) => r, { ...w, png: Buffer.alloc(0) })).toContain('chart: not a PNG');
  });
});
