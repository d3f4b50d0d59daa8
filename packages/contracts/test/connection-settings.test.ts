import { describe, expect, it } from 'vitest';
import { loadConnectionSettings } from '../src/connection-settings.ts';
import { HookstreamError } from '../src/hookstream-error.ts';

describe('loadConnectionSettings', () => {
  it("defaults to the local stack's ports on 127.0.0.1, which KAFKA_PORT and REGISTRY_PORT move", () => {
    expect(loadConnectionSettings({})).toEqual({
      brokers: ['127.0.0.1:9092'],
      registryUrl: 'http://127.0.0.1:8081/apis/ccompat/v7',
      limiterRedisUrl: undefined,
    });
    expect(loadConnectionSettings({ KAFKA_PORT: '19092', REGISTRY_PORT: '18081' })).toMatchObject({
      brokers: ['127.0.0.1:19092'],
      registryUrl: 'http://127.0.0.1:18081/apis/ccompat/v7',
    });
  });

  it('takes brokers, a registry URL and a Redis URL (password kept) as given', () => {
    expect(
      loadConnectionSettings({
        KAFKA_BROKERS: 'kafka-0.internal:9093, kafka-1.internal:9093',
        REGISTRY_URL: 'https://registry.internal/apis/ccompat/v7',
        HOOKSTREAM_LIMITER_REDIS: 'rediss://:s3cret@redis.internal:6380',
      }),
    ).toEqual({
      brokers: ['kafka-0.internal:9093', 'kafka-1.internal:9093'],
      registryUrl: 'https://registry.internal/apis/ccompat/v7',
      limiterRedisUrl: 'rediss://:s3cret@redis.internal:6380',
    });
  });

  it.each([
    [{ KAFKA_BROKERS: 'kafka-0' }, /^KAFKA_BROKERS/],
    [{ KAFKA_PORT: '99999' }, /^KAFKA_PORT/],
    [{ REGISTRY_URL: 'ftp://registry' }, /^REGISTRY_URL/],
    [{ HOOKSTREAM_LIMITER_REDIS: 'http://redis:6379' }, /^HOOKSTREAM_LIMITER_REDIS/],
  ])('refuses %o naming the variable', (env, message) => {
    let thrown: unknown;
    try {
      loadConnectionSettings(env);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(HookstreamError);
    expect(thrown).toMatchObject({
      code: 'BAD_CONFIG',
      canRetry: false,
      message: expect.stringMatching(message),
    });
  });
});
