import { type ConnectionSettings, loadConnectionSettings } from '@hookstream/contracts';

let parsed: ConnectionSettings | undefined;

/**
 * Kafka and the registry from the same variables as every component (KAFKA_BROKERS /
 * KAFKA_PORT, the KAFKA_TLS_* and KAFKA_SASL_* settings, REGISTRY_URL / REGISTRY_PORT and its
 * credentials). Parsed once per process; a bad value stops the command naming it.
 */
export function benchConnection(): ConnectionSettings {
  parsed ??= loadConnectionSettings(process.env);
  return parsed;
}
