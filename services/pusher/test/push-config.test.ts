import { describe, expect, it } from 'vitest';
import { loadPushConfig, PushConfigError } from '../src/push-config.ts';

function refused(flags: Parameters<typeof loadPushConfig>[0], env: NodeJS.ProcessEnv = {}): string {
  try {
    loadPushConfig(flags, env);
  } catch (err) {
    expect(err).toBeInstanceOf(PushConfigError);
    expect(err).toMatchObject({ code: 'BAD_CONFIG', canRetry: false });
    return (err as Error).message;
  }
  throw new Error('accepted');
}

describe('loadPushConfig', () => {
  it('defaults a single pusher and a fleet apart (fetch wait, tier partitions)', () => {
    const one = loadPushConfig({ config: 'a.json' }, {});
    expect(one).toMatchObject({
      mode: { kind: 'one', configFile: 'a.json', resumeFrom: undefined },
      topic: 'events',
      fetchWaitMs: 100,
      memoryBudgetBytes: 256 * 1024 * 1024,
      health: null,
      logLevel: 'info',
      connection: { kafka: { brokers: ['127.0.0.1:9092'], tls: null, sasl: null } },
    });
    expect(loadPushConfig({ all: true }, {})).toMatchObject({
      mode: { kind: 'fleet', tierPartitions: 1 },
      fetchWaitMs: 1000,
    });
  });

  it('reads the memory budget in MiB from its flag or variable, bounded', () => {
    const env = { HOOKSTREAM_MEMORY_BUDGET_MB: '64' };
    expect(loadPushConfig({ all: true }, env).memoryBudgetBytes).toBe(64 * 1024 * 1024);
    expect(loadPushConfig({ all: true, 'memory-budget': '512' }, env).memoryBudgetBytes).toBe(
      512 * 1024 * 1024,
    );
    expect(refused({ all: true, 'memory-budget': '8' })).toBe(
      "--memory-budget (or HOOKSTREAM_MEMORY_BUDGET_MB): expected MiB from 16 to 16384, got '8'",
    );
    expect(refused({ all: true }, { HOOKSTREAM_MEMORY_BUDGET_MB: 'lots' })).toContain(
      'HOOKSTREAM_MEMORY_BUDGET_MB',
    );
  });

  it('lets a flag override its variable, and reads the variable when the flag is absent', () => {
    const env = {
      HOOKSTREAM_PUSHER_HEALTH_PORT: '8081',
      HOOKSTREAM_EVENTS_TOPIC: 'from-env',
      LOG_LEVEL: 'warn',
    };
    expect(loadPushConfig({ all: true }, env)).toMatchObject({
      health: { port: 8081, host: '127.0.0.1' },
      topic: 'from-env',
      logLevel: 'warn',
    });
    expect(
      loadPushConfig({ all: true, 'health-port': '9000', topic: 'flag', 'log-level': 'debug' }, env),
    ).toMatchObject({
      health: { port: 9000 },
      topic: 'flag',
      logLevel: 'debug',
    });
  });

  it.each([
    [
      { config: 'a.json', 'health-port': 'eighty' },
      {},
      "--health-port (or HOOKSTREAM_PUSHER_HEALTH_PORT): expected a port number, got 'eighty'",
    ],
    [
      { all: true },
      { HOOKSTREAM_PUSHER_HEALTH_PORT: '70000' },
      "--health-port (or HOOKSTREAM_PUSHER_HEALTH_PORT): expected a port number, got '70000'",
    ],
    [{ all: true, 'fetch-wait': '5' }, {}, "--fetch-wait: expected 10 to 10000 ms, got '5'"],
    [{ all: true, 'tier-partitions': '0' }, {}, "--tier-partitions: expected 1 to 1000, got '0'"],
    [{ all: true, instance: 'a b' }, {}, '--instance: expected 1 to 200 letters'],
    [{ all: true, redis: 'http://x' }, {}, '--redis (or HOOKSTREAM_LIMITER_REDIS): expected a redis://'],
    [
      { config: 'a.json', 'resume-from': 'yesterday' },
      {},
      "--resume-from: expected earliest, latest or an RFC 3339 time, got 'yesterday'",
    ],
    [{ config: 'a.json', all: true }, {}, 'give exactly one of --config <file> and --all'],
    [{ config: 'a.json', match: 'x-*' }, {}, '--match needs --all'],
    [{ all: true, 'resume-from': 'earliest' }, {}, '--resume-from takes one subscriber'],
    [{ all: true }, { KAFKA_SASL_MECHANISM: 'plain' }, 'KAFKA_SASL_USERNAME: required'],
  ])('refuses %o %o naming the flag or variable', (flags, env, message) => {
    expect(refused(flags, env)).toContain(message);
  });

  it.each([
    [
      '--redis, not a URL',
      { all: true, redis: 'redis://:s3cret@redis.internal:63790000' },
      {},
      "--redis (or HOOKSTREAM_LIMITER_REDIS): expected a redis:// or rediss:// URL, got 'redis://REDACTED@redis.internal:63790000'",
    ],
    [
      'HOOKSTREAM_LIMITER_REDIS, not redis://',
      { all: true },
      { HOOKSTREAM_LIMITER_REDIS: 'http://default:s3cret@redis.internal:6379/0?password=s3cret' },
      "--redis (or HOOKSTREAM_LIMITER_REDIS): expected a redis:// or rediss:// URL, got 'http://REDACTED@redis.internal:6379/0?password=REDACTED'",
    ],
    [
      '--instance given a URL',
      { all: true, instance: 'https://u:s3cret@host' },
      {},
      "--instance: expected 1 to 200 letters, digits, '.', '_', ':' or '-', got 'https://REDACTED@host'",
    ],
    [
      '--metrics-port given a URL without its scheme',
      { all: true, 'metrics-port': 'user:s3cret@host:9090' },
      {},
      "--metrics-port (or HOOKSTREAM_METRICS_PORT): expected a port number, got 'REDACTED@host:9090'",
    ],
    [
      'HOOKSTREAM_EGRESS_PROXY, not a URL',
      { all: true },
      { HOOKSTREAM_EGRESS_PROXY: 'http://user:s3#cret@proxy.internal:3128' },
      "HOOKSTREAM_EGRESS_PROXY: not a URL: 'http://REDACTED@proxy.internal:3128'",
    ],
  ])('passwords are not echoed: refusal of %s', (_what, flags, env, message) => {
    const shown = refused(flags, env);
    expect(shown).toBe(message);
    expect(shown).not.toContain('s3');
  });
});
