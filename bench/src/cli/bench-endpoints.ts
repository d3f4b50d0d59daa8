import { loadConnectionSettings } from '@hookstream/contracts';

let parsed: { brokers: readonly string[]; registryUrl: string } | undefined;

/**
 * Brokers and registry URL, from the same variables as every component (KAFKA_BROKERS /
 * KAFKA_PORT, REGISTRY_URL / REGISTRY_PORT): the benchmarks run against the local stack, in
 * plaintext. Parsed once per process; a bad value stops the command naming it.
 */
export function benchEndpoints(): { brokers: readonly string[]; registryUrl: string } {
  if (parsed === undefined) {
    const { kafka, registry } = loadConnectionSettings(process.env);
    parsed = { brokers: kafka.brokers, registryUrl: registry.url };
  }
  return parsed;
}
