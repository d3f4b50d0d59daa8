import { createKafka, type KafkaConnection } from '@hookstream/kafka';
import { runtimeEndpoints } from './runtime-endpoints.ts';

/** The tools' Kafka client: KAFKA_BROKERS, else the local stack's KAFKA_PORT (default 9092). */
export function toolKafka(clientId: string): KafkaConnection {
  // Quiet: stdout may carry --json, and failures reach the operator as thrown errors anyway.
  return createKafka({ brokers: runtimeEndpoints().brokers, clientId, quiet: true });
}
