import { plaintextConnection } from '@hookstream/contracts';
import { loadStackConfig } from '@hookstream/stack';

const config = loadStackConfig();

/** Where the stack the tests run against listens (same environment as `stack up`). */
const brokers = [`${config.host}:${config.kafka.port}`];
const registry = `http://${config.host}:${config.registry.port}/apis/ccompat/v7`;

export const endpoints = {
  brokers,
  registry,
  /** Kafka and the registry as components take them (the local stack: plaintext, no credentials). */
  kafka: plaintextConnection(brokers, registry).kafka,
  registrySettings: plaintextConnection(brokers, registry).registry,
  otlpTraces: `http://${config.host}:${config.jaeger.otlpHttpPort}/v1/traces`,
  jaegerQuery: `http://${config.host}:${config.jaeger.queryPort}`,
  redis: { host: config.host, port: config.redis.port },
} as const;

/** The stack's Redis, where clustered limiters meet (as `hookstream push --redis` takes it). */
export const redisUrl = `redis://${config.host}:${config.redis.port}`;
