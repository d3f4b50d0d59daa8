import { z } from 'zod';

/**
 * The report's contract: what `hookstream bench --json` prints and scripts read. Figures are
 * finite numbers (zod refuses NaN and ±Infinity; JSON would turn them into null anyway).
 */

/** Every unit a figure is given in; a new one is added here, so a typo fails the schema. */
export const FIGURE_UNITS = [
  'events/s',
  'records/s',
  'deliveries/s',
  'requests',
  'ms',
  'µs',
  's',
  '%',
  '% of a core',
  'MiB',
  // Memory per request in flight (push, batch).
  'KiB',
] as const;
export const FigureUnit = z.enum(FIGURE_UNITS);
export type FigureUnit = z.infer<typeof FigureUnit>;

/** How big each benchmark's load is; `--quick`, `--smoke` and `--events` shrink it. */
export const BenchScale = z
  .object({
    ingressEvents: z.number().int().positive(),
    pushEvents: z.number().int().positive(),
    /** Counted runs each of the plain undici loop and the pusher, interleaved, after a warm-up of each. */
    pushRounds: z.number().int().positive(),
    /** The backlog of each traced and untraced drain in the push section, and the rounds of them. */
    tracingEvents: z.number().int().positive(),
    tracingRounds: z.number().int().positive(),
    /** Backlog of the push section's https row (16 KiB events), drained in pushRounds interleaved rounds. */
    httpsEvents: z.number().int().positive(),
    /** Uncounted drains of each mode before the push, tracing and batch comparisons: 1, or 0 at the smoke scale. */
    warmUpDrains: z.number().int().min(0).max(1),
    e2eEvents: z.number().int().positive(),
    halfLoadSeconds: z.number().positive(),
    perfRecords: z.number().int().positive(),
    limiterRate: z.number().int().positive(),
    limiterEvents: z.number().int().positive(),
    /** Events sent through the retry tiers for the lateness run, and the tier delays. */
    retryRecords: z.number().int().positive(),
    retryTiersMs: z.array(z.number().int().positive()).min(1).readonly(),
    /** Hard cap of one ingress run, whatever the event count. */
    runDeadlineMs: z.number().int().positive(),
    /** The management API's catalog (its own subscribers), reads per route and conditional writes. */
    apiSubscribers: z.number().int().positive(),
    apiRequests: z.number().int().positive(),
    apiWrites: z.number().int().positive(),
    /** Backlog and rounds of the batched/unbatched comparison, at each endpoint delay (ms). */
    batchEvents: z.number().int().positive(),
    batchRounds: z.number().int().positive(),
    batchDelaysMs: z.array(z.number().int().nonnegative()).min(1).readonly(),
    /** Backlog leased by the pull subscriber, then drained by a pusher. */
    pullEvents: z.number().int().positive(),
    /** The window `hookstream reconcile` reads (10,000 at least: the scene's tier copies). */
    reconcileEvents: z.number().int().min(10_000),
    /** Idle window and each load phase of `--fleet`. */
    fleetIdleSeconds: z.number().int().positive(),
    fleetLoadSeconds: z.number().int().positive(),
  })
  .readonly();
export type BenchScale = z.infer<typeof BenchScale>;

/** A baseline from the same run; the ratio is the figure's value over the baseline's. */
export const Baseline = z.object({ label: z.string().min(1), value: z.number() }).readonly();
export type Baseline = z.infer<typeof Baseline>;

/** One measured figure, next to its raw baselines. */
export const Figure = z
  .object({
    /** Stable id, for later sections and for scripts reading --json. */
    id: z.string().regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/),
    label: z.string().min(1),
    value: z.number(),
    unit: FigureUnit,
    baselines: z.array(Baseline).readonly(),
  })
  .readonly();
export type Figure = z.infer<typeof Figure>;

export const TargetCheck = z
  .object({ target: z.string().min(1), measured: z.string().min(1), met: z.boolean() })
  .readonly();
export type TargetCheck = z.infer<typeof TargetCheck>;

/** What a section adds to the chart: latency percentiles and throughput next to baselines. */
export const ChartContribution = z
  .object({
    latency: z
      .array(z.object({ label: z.string(), p50Ms: z.number(), p99Ms: z.number() }))
      .readonly()
      .optional(),
    /** `raw`: the bar is itself a baseline (Kafka's perf tests), drawn in the baseline colour. */
    throughput: z
      .array(
        z.object({
          label: z.string(),
          perSecond: z.number(),
          baseline: Baseline.optional(),
          raw: z.boolean().optional(),
        }),
      )
      .readonly()
      .optional(),
  })
  .readonly();
export type ChartContribution = z.infer<typeof ChartContribution>;

/** A section after it ran (or failed), its result kept raw for --json. */
export const SectionOutcome = z
  .object({
    id: z.string().min(1),
    title: z.string().min(1),
    method: z.string().min(1),
    seconds: z.number().nonnegative(),
    error: z.string().nullable(),
    result: z.unknown(),
    figures: z.array(Figure).readonly(),
    targets: z.array(TargetCheck).readonly(),
    chart: ChartContribution,
    details: z.string(),
  })
  .readonly();
export type SectionOutcome = z.infer<typeof SectionOutcome>;

export const BenchReport = z
  .object({
    startedAt: z.iso.datetime(),
    seconds: z.number().nonnegative(),
    machine: z
      .object({
        cpus: z.number().int().positive(),
        cpuModel: z.string(),
        memoryGiB: z.number().nonnegative(),
        node: z.string(),
        platform: z.string(),
      })
      .readonly(),
    scale: BenchScale,
    sections: z.array(SectionOutcome).readonly(),
  })
  .readonly();
export type BenchReport = z.infer<typeof BenchReport>;
