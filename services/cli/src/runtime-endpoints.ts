import { type ConnectionSettings, loadConnectionSettings } from '@hookstream/contracts';

/**
 * Where Kafka, the registry and Redis are, from the one shared schema (KAFKA_BROKERS /
 * KAFKA_PORT, REGISTRY_URL / REGISTRY_PORT, HOOKSTREAM_LIMITER_REDIS): the same variables and
 * defaults as the ingress. Parsed once per process; a bad value stops the command naming it.
 */
let parsed: ConnectionSettings | undefined;

export function runtimeEndpoints(): { brokers: string[]; registryUrl: string } {
  parsed ??= loadConnectionSettings(process.env);
  return { brokers: parsed.brokers, registryUrl: parsed.registryUrl };
}

/** The Redis URL shared limits go through (HOOKSTREAM_LIMITER_REDIS), if set. */
export function limiterRedisUrl(): string | undefined {
  parsed ??= loadConnectionSettings(process.env);
  return parsed.limiterRedisUrl;
}
