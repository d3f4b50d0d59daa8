import { loadStackConfig } from '@hookstream/stack';

/**
 * Where Kafka and the registry are: HOOKSTREAM_BROKERS / HOOKSTREAM_REGISTRY_URL when set
 * (a real deployment), otherwise the local stack's ports.
 */
export function runtimeEndpoints(env: NodeJS.ProcessEnv = process.env): {
  brokers: string[];
  registryUrl: string;
} {
  const stack = loadStackConfig(env);
  return {
    brokers: env.HOOKSTREAM_BROKERS?.split(',').map((b) => b.trim()) ?? [`${stack.host}:${stack.kafka.port}`],
    registryUrl: env.HOOKSTREAM_REGISTRY_URL ?? `http://${stack.host}:${stack.registry.port}/apis/ccompat/v7`,
  };
}
