import type { ConnectionOptions } from 'node:tls';
import type { KafkaSasl, KafkaTls } from '@hookstream/contracts';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';

/**
 * How hookstream reaches Kafka. The one place client settings live, so TLS and SASL reach
 * every connection, tool and probe alike.
 */
export interface KafkaClientOptions {
  /** host:port pairs, e.g. ["127.0.0.1:9092"]. */
  readonly brokers: readonly string[];
  readonly clientId: string;
  /** TLS to the brokers (files already read); null or absent: plaintext. */
  readonly tls?: KafkaTls | null;
  readonly sasl?: KafkaSasl | null;
  readonly connectionTimeoutMs?: number;
  /** How long one request may wait for the broker's answer (kafkajs default: 30 s). */
  readonly requestTimeoutMs?: number;
  /** Retries of a failed request inside kafkajs (default 5, with backoff); probes want 0. */
  readonly retries?: number;
  /** kafkajs logs every refused connection at ERROR; probes and tests want silence. */
  readonly quiet?: boolean;
}

/** Node TLS options for a broker connection; shared by kafkajs and the TLS check (tls-preflight.ts). */
export function tlsOptions(tls: KafkaTls): ConnectionOptions {
  return {
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert, key: tls.key }),
    rejectUnauthorized: true,
    // The chain is still checked; only the name in the certificate is not compared.
    ...(tls.checkServerName ? {} : { checkServerIdentity: () => undefined }),
  };
}

function saslOptions(sasl: KafkaSasl): SASLOptions {
  return { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } as SASLOptions;
}

/**
 * Builds a kafkajs client. Internal: outside this package only KafkaConnection is seen. The
 * package's index installed hookstream's kafkajs patches before this module loaded.
 */
export function newKafkaClient(options: KafkaClientOptions): Kafka {
  return new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    ...(options.tls ? { ssl: tlsOptions(options.tls) } : {}),
    ...(options.sasl ? { sasl: saslOptions(options.sasl) } : {}),
    connectionTimeout: options.connectionTimeoutMs ?? 3000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    ...(options.retries === undefined ? {} : { retry: { retries: options.retries } }),
    logLevel: options.quiet ? logLevel.NOTHING : logLevel.WARN,
  });
}
