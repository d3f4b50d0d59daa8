export type { ConsumerPerfResult, KafkaPerfOptions, ProducerPerfResult } from './kafka-perf.ts';
export { kafkaConsumerPerf, kafkaProducerPerf, parseConsumerPerf, parseProducerPerf } from './kafka-perf.ts';
