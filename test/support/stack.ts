import { loadStackConfig } from '@hookstream/stack';

const config = loadStackConfig();

/** Where the stack the tests run against listens (same environment as `stack up`). */
export const endpoints = {
  brokers: [`${config.host}:${config.kafka.port}`],
  registry: `http://${config.host}:${config.registry.port}/apis/ccompat/v7`,
  otlpTraces: `http://${config.host}:${config.jaeger.otlpHttpPort}/v1/traces`,
  jaegerQuery: `http://${config.host}:${config.jaeger.queryPort}`,
} as const;

/**
 * Redis for clustered limiters: the stack's (127.0.0.1:6379, started by `stack up` when
 * HOOKSTREAM_REDIS asks for it), unless HOOKSTREAM_LIMITER_REDIS names another, as for pushers.
 */
export const redisUrl = process.env.HOOKSTREAM_LIMITER_REDIS ?? 'redis://127.0.0.1:6379';
