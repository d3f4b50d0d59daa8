import { Kafka, logLevel } from 'kafkajs';

/**
 * How hookstream reaches Kafka. The one place client settings live: TLS/SASL will be added here
 * and reach every connection, tool and probe alike.
 */
export interface KafkaClientOptions {
  /** host:port pairs, e.g. ["127.0.0.1:9092"]. */
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly connectionTimeoutMs?: number;
  /** How long one request may wait for the broker's answer (kafkajs default: 30 s). */
  readonly requestTimeoutMs?: number;
  /** Retries of a failed request inside kafkajs (default 5, with backoff); probes want 0. */
  readonly retries?: number;
  /** kafkajs logs every refused connection at ERROR; probes and tests want silence. */
  readonly quiet?: boolean;
}

/** Builds a kafkajs client. Internal: outside this package only KafkaConnection is seen. */
export function newKafkaClient(options: KafkaClientOptions): Kafka {
  return new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    connectionTimeout: options.connectionTimeoutMs ?? 3000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    ...(options.retries === undefined ? {} : { retry: { retries: options.retries } }),
    logLevel: options.quiet ? logLevel.NOTHING : logLevel.WARN,
  });
}
