import { type ConnectionSettings, loadConnectionSettings } from '@hookstream/contracts';

/**
 * How the tools reach Kafka, the registry and Redis, from the one shared schema (KAFKA_BROKERS /
 * KAFKA_PORT, the KAFKA_TLS_* and KAFKA_SASL_* settings, REGISTRY_URL / REGISTRY_PORT and its
 * credentials, HOOKSTREAM_LIMITER_REDIS): the same variables and defaults as the ingress.
 * Parsed once per process; a bad value stops the command naming it.
 */
let parsed: ConnectionSettings | undefined;

export function runtimeConnection(): ConnectionSettings {
  parsed ??= loadConnectionSettings(process.env);
  return parsed;
}
