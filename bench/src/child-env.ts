import type { ConnectionSettings } from '@hookstream/contracts';

/**
 * The variables that point a child process (an ingress, a pusher, a fleet) at the benchmark's
 * Kafka and registry. TLS, SASL and registry credentials travel in the KAFKA_* and REGISTRY_*
 * variables the child inherits, which are what the connection was parsed from.
 */
export function connectionEnv(connection: ConnectionSettings): Record<string, string> {
  return { KAFKA_BROKERS: connection.kafka.brokers.join(','), REGISTRY_URL: connection.registry.url };
}
