export { formatIngressBench } from './format.ts';
export type { IngressBenchOptions, IngressBenchResult } from './ingress-bench.ts';
export { runIngressBench } from './ingress-bench.ts';
export type { ConsumerPerfResult, KafkaPerfOptions, ProducerPerfResult } from './kafka-perf.ts';
export { kafkaConsumerPerf, kafkaProducerPerf, parseConsumerPerf, parseProducerPerf } from './kafka-perf.ts';
export type { BenchRow } from './stats.ts';
export { quantile, summarize } from './stats.ts';
