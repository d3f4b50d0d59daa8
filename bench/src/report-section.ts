import type { ConnectionSettings } from '@hookstream/contracts';
import type { BenchScale, ChartContribution, Figure, SectionOutcome, TargetCheck } from './report-schema.ts';

export type {
  Baseline,
  BenchScale,
  ChartContribution,
  Figure,
  SectionOutcome,
  TargetCheck,
} from './report-schema.ts';

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
