export type { ArrivalGaps } from './arrival-gaps.ts';
export { arrivalGaps } from './arrival-gaps.ts';
export { FULL_SCALE, QUICK_SCALE, runBenchReport, SMOKE_SCALE, scaleFor } from './bench-report.ts';
export { BENCH_API_USAGE } from './cli/bench-api.ts';
export {
  BENCH_USAGE,
  benchCommand,
} from './cli/bench-command.ts';
export { BENCH_CPU_BASELINE_USAGE } from './cli/bench-cpu-baseline.ts';
export { BENCH_E2E_USAGE } from './cli/bench-e2e.ts';
export { BENCH_FLEET_USAGE } from './cli/bench-fleet.ts';
export { BENCH_HANDOFF_USAGE } from './cli/bench-handoff.ts';
export { BENCH_LIMITER_USAGE } from './cli/bench-limiter.ts';
export { BENCH_LIMITER_WAIT_USAGE } from './cli/bench-limiter-wait.ts';
export { BENCH_OUTAGE_USAGE } from './cli/bench-outage.ts';
export { BENCH_PORTAL_USAGE } from './cli/bench-portal.ts';
export { BENCH_PROFILE_USAGE } from './cli/bench-profile.ts';
export { BENCH_PULL_USAGE } from './cli/bench-pull.ts';
export { BENCH_PUSH_USAGE } from './cli/bench-push.ts';
export { BENCH_RECONCILE_USAGE } from './cli/bench-reconcile.ts';
export { BENCH_REPORT_USAGE } from './cli/bench-report-command.ts';
export { BENCH_RETRY_USAGE } from './cli/bench-retry.ts';
export { BENCH_SPANS_USAGE } from './cli/bench-spans.ts';
export type { CpuRatio, CpuRatioOptions } from './cpu-baseline.ts';
export {
  CPU_BASELINE_COMMAND,
  CPU_BASELINE_DEFAULTS,
  CPU_BASELINE_FILE,
  CPU_REGRESSION_MARGIN,
  CpuBaseline,
  cpuBaselineOf,
  cpuRegressionVerdict,
  measureCpuRatio,
  readCpuBaseline,
} from './cpu-baseline.ts';
export { DEFAULT_SECTIONS } from './default-sections.ts';
export type { E2eBenchOptions, E2eBenchResult } from './e2e-bench.ts';
export { runE2eBench } from './e2e-bench.ts';
export type { FleetBenchOptions, FleetBenchResult } from './fleet-bench.ts';
export { runFleetBench } from './fleet-bench.ts';
export type { HeapFigures } from './fleet-child.ts';
export type { CleanupReport } from './fleet-cleanup.ts';
export type { DeliveryRate, LoadFigures } from './fleet-load.ts';
export type { OwnTopics } from './fleet-partitions.ts';
export type { FleetFigures } from './fleet-targets.ts';
export { FLEET_TARGETS, fleetTargets } from './fleet-targets.ts';
export { formatIngressBench } from './format.ts';
export type { JoinWait } from './group-joins.ts';
export type { IngressBenchOptions, IngressBenchResult } from './ingress-bench.ts';
export { runIngressBench } from './ingress-bench.ts';
export type { ConsumerPerfResult, KafkaPerfOptions, ProducerPerfResult } from './kafka-perf.ts';
export { kafkaConsumerPerf, kafkaProducerPerf, parseConsumerPerf, parseProducerPerf } from './kafka-perf.ts';
export type { LimiterBenchOptions, LimiterBenchResult } from './limiter-bench.ts';
export { runLimiterBench } from './limiter-bench.ts';
export type { OutageBenchOptions, OutageBenchResult, OutageRun } from './outage-bench.ts';
export { benchOutage } from './outage-bench.ts';
export type { PortalBenchOptions, PortalBenchResult, PortalQuery } from './portal-bench.ts';
export { PORTAL_QUERIES, runPortalBench } from './portal-bench.ts';
export type { ProfileShare, ProfileSummary } from './profile-summary.ts';
export { summarizeProfile } from './profile-summary.ts';
export type { BenchOptions, BenchResult } from './push-bench.ts';
export { benchPush, produceBacklog } from './push-bench.ts';
export type { ReconcileBenchOptions, ReconcileBenchResult } from './reconcile-bench.ts';
export { runReconcileBench } from './reconcile-bench.ts';
export { renderChartSvg } from './report-chart.ts';
export { formatNumber, renderMarkdown } from './report-markdown.ts';
export { PNG_SIGNATURE, svgToPng } from './report-png.ts';
export {
  Baseline,
  BenchReport,
  BenchScale,
  ChartContribution,
  FIGURE_UNITS,
  Figure,
  FigureUnit,
  SectionOutcome,
  TargetCheck,
} from './report-schema.ts';
export type { BenchContext, BenchSection, RunnableSection } from './report-section.ts';
export { defineSection, ratio } from './report-section.ts';
export type { RetryLatenessOptions, RetryLatenessResult, TierLateness } from './retry-lateness-bench.ts';
export { benchRetryLateness } from './retry-lateness-bench.ts';
export type { BenchRow, LatencySummary } from './stats.ts';
export { quantile, summarize, summarizeLatencies } from './stats.ts';
export type { WrittenReport } from './write-report.ts';
export { writeBenchReport } from './write-report.ts';
