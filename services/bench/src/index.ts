export { formatIngressBench } from './format.ts';
export type { IngressBenchOptions, IngressBenchResult } from './ingress-bench.ts';
export { runIngressBench } from './ingress-bench.ts';
export type { BenchRow } from './stats.ts';
export { quantile, summarize } from './stats.ts';
