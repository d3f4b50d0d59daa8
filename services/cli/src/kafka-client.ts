import { createKafka, type KafkaConnection } from '@hookstream/kafka';
import { runtimeConnection } from './runtime-endpoints.ts';

/** The tools' Kafka client: KAFKA_BROKERS (else the local stack's KAFKA_PORT), TLS and SASL. */
export function toolKafka(clientId: string): KafkaConnection {
  // Quiet: stdout may carry --json, and failures reach the operator as thrown errors anyway.
  return createKafka({ ...runtimeConnection().kafka, clientId, quiet: true });
}
