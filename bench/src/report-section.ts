import type { ConnectionSettings } from '@hookstream/contracts';

/** How big each benchmark's load is; `--quick` and `--events` shrink it. */
export interface BenchScale {
  readonly ingressEvents: number;
  readonly pushEvents: number;
  /** Counted runs each of the plain undici loop and the pusher, interleaved, after a warm-up of each. */
  readonly pushRounds: number;
  /** The backlog of each traced and untraced drain in the push section, and the rounds of them. */
  readonly tracingEvents: number;
  readonly tracingRounds: number;
  readonly e2eEvents: number;
  readonly halfLoadSeconds: number;
  readonly perfRecords: number;
  readonly limiterRate: number;
  readonly limiterEvents: number;
  /** Events sent through the retry tiers for the lateness run, and the tier delays. */
  readonly retryRecords: number;
  readonly retryTiersMs: readonly number[];
  /** Hard cap of one ingress run, whatever the event count. */
  readonly runDeadlineMs: number;
  /** The management API's catalog (its own subscribers), reads per route and conditional writes. */
  readonly apiSubscribers: number;
  readonly apiRequests: number;
  readonly apiWrites: number;
  /** Backlog and rounds of the batched/unbatched comparison, at each endpoint delay (ms). */
  readonly batchEvents: number;
  readonly batchRounds: number;
  readonly batchDelaysMs: readonly number[];
  /** Backlog leased by the pull subscriber, then drained by a pusher. */
  readonly pullEvents: number;
  /** The window `hookstream reconcile` reads (10,000 at least: the scene's tier copies). */
  readonly reconcileEvents: number;
  /** Idle window and each load phase of `--fleet`. */
  readonly fleetIdleSeconds: number;
  readonly fleetLoadSeconds: number;
}

export interface BenchContext {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  /** Redis for the clustered-limiter case; without it that case is skipped. */
  readonly redisUrl?: string | undefined;
  /** Kafka's jars, for the perf-test classes. */
  readonly kafkaLibsDir: string;
  readonly scale: BenchScale;
  readonly progress: (line: string) => void;
  /** A figure an earlier section reported, by id: how a section finds its baselines. */
  readonly figure: (id: string) => Figure | undefined;
}

/** A baseline from the same run; the ratio is the figure's value over the baseline's. */
export interface Baseline {
  readonly label: string;
  readonly value: number;
}

/** One measured figure, next to its raw baselines. */
export interface Figure {
  /** Stable id, for later sections and for scripts reading --json. */
  readonly id: string;
  readonly label: string;
  readonly value: number;
  readonly unit: string;
  readonly baselines: readonly Baseline[];
}

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

/** What a section adds to the chart: latency percentiles and throughput next to baselines. */
export interface ChartContribution {
  readonly latency?: readonly { label: string; p50Ms: number; p99Ms: number }[];
  /** `raw`: the bar is itself a baseline (Kafka's perf tests), drawn in the baseline colour. */
  readonly throughput?: readonly { label: string; perSecond: number; baseline?: Baseline; raw?: boolean }[];
}

/**
 * One part of the report: how to run it and what to say about the result. Adding a benchmark
 * (retry-tier lateness, say) is one more entry in the list passed to runBenchReport.
 */
export interface BenchSection<R> {
  readonly id: string;
  readonly title: string;
  /** What was measured and how, one Markdown paragraph. */
  readonly method: string;
  run(ctx: BenchContext): Promise<R>;
  figures(result: R, ctx: BenchContext): readonly Figure[];
  targets?(result: R, ctx: BenchContext): readonly TargetCheck[];
  chart?(result: R): ChartContribution;
  /** Extra Markdown under the figures (a detail table, a caveat). */
  details?(result: R): string;
}

/** A section after it ran (or failed), its result kept raw for --json. */
export interface SectionOutcome {
  readonly id: string;
  readonly title: string;
  readonly method: string;
  readonly seconds: number;
  readonly error: string | null;
  readonly result: unknown;
  readonly figures: readonly Figure[];
  readonly targets: readonly TargetCheck[];
  readonly chart: ChartContribution;
  readonly details: string;
}

/** A section with its result type erased, so sections of different results share one list. */
export interface RunnableSection {
  readonly id: string;
  readonly title: string;
  execute(ctx: BenchContext): Promise<SectionOutcome>;
}

export function defineSection<R>(section: BenchSection<R>): RunnableSection {
  return {
    id: section.id,
    title: section.title,
    async execute(ctx) {
      const started = performance.now();
      const base = { id: section.id, title: section.title, method: section.method };
      const seconds = () => Math.round((performance.now() - started) / 100) / 10;
      let result: R;
      try {
        result = await section.run(ctx);
      } catch (err) {
        // One failing benchmark still leaves a report of the others; the command exits non-zero.
        const message = err instanceof Error ? err.message : String(err);
        return {
          ...base,
          seconds: seconds(),
          error: message,
          result: null,
          figures: [],
          targets: [],
          chart: {},
          details: '',
        };
      }
      return {
        ...base,
        seconds: seconds(),
        error: null,
        result,
        figures: section.figures(result, ctx),
        targets: section.targets?.(result, ctx) ?? [],
        chart: section.chart?.(result) ?? {},
        details: section.details?.(result) ?? '',
      };
    },
  };
}

/** value / baseline, two decimals; 0 without a baseline. */
export function ratio(value: number, baseline: number): number {
  return baseline > 0 ? Math.round((value / baseline) * 100) / 100 : 0;
}
