import { loadStackConfig } from '@hookstream/stack';

/**
 * Where Kafka and the registry are: KAFKA_BROKERS / REGISTRY_URL when set (the same variables as the ingress)
 * (a real deployment), otherwise the local stack's ports.
 */
export function runtimeEndpoints(env: NodeJS.ProcessEnv = process.env): {
  brokers: string[];
  registryUrl: string;
} {
  const stack = loadStackConfig(env);
  return {
    brokers: env.KAFKA_BROKERS?.split(',').map((b) => b.trim()) ?? [`${stack.host}:${stack.kafka.port}`],
    registryUrl: env.REGISTRY_URL ?? `http://${stack.host}:${stack.registry.port}/apis/ccompat/v7`,
  };
}
