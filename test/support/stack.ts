import { loadStackConfig } from '@hookstream/stack';

const config = loadStackConfig();

/** Where the stack the tests run against listens (same environment as `stack up`). */
export const endpoints = {
  brokers: [`${config.host}:${config.kafka.port}`],
  registry: `http://${config.host}:${config.registry.port}/apis/ccompat/v7`,
  otlpTraces: `http://${config.host}:${config.jaeger.otlpHttpPort}/v1/traces`,
  jaegerQuery: `http://${config.host}:${config.jaeger.queryPort}`,
  redis: { host: config.host, port: config.redis.port },
} as const;

/** The stack's Redis, where clustered limiters meet (as `hookstream push --redis` takes it). */
export const redisUrl = `redis://${config.host}:${config.redis.port}`;
