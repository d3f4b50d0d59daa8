import { describe, expect, it } from 'vitest';
import { parseBenchInstancesArgs } from '../../src/cli/bench-fleet-instances.ts';
import { DISRUPTIONS } from '../../src/fleet-disruptions.ts';

describe('hookstream bench fleet --instances (argument handling)', () => {
  it('defaults to issue 43 shape A: 3 instances of one shard, 1000 subscribers, 100 active at 10/s, every disruption', () => {
    expect(parseBenchInstancesArgs(['--instances', '3'], {})).toEqual({
      kind: 'run',
      json: false,
      settings: {
        instancesPerShard: 3,
        shards: 1,
        subscribers: 1000,
        active: 100,
        perSubscriberPerSecond: 10,
        idleSeconds: 60,
        settleSeconds: 20,
        sessionTimeoutMs: 30_000,
        joinTimeoutSeconds: 300,
        disruptions: [...DISRUPTIONS],
      },
    });
  });

  it('takes shards, a subset of disruptions in order, and Redis from the flag or the environment', () => {
    const parsed = parseBenchInstancesArgs(
      ['--instances', '2', '--shards', '5', '--disruptions', 'stop,crash', '--json'],
      { HOOKSTREAM_LIMITER_REDIS: 'redis://127.0.0.1:6379' },
    );
    expect(parsed).toMatchObject({
      kind: 'run',
      json: true,
      settings: {
        instancesPerShard: 2,
        shards: 5,
        disruptions: ['stop', 'crash'],
        redisUrl: 'redis://127.0.0.1:6379',
      },
    });
  });

  it.each([
    [['--instances', '0'], '--instances must be an integer from 1 to 10'],
    [['--instances', '3', '--shards', '6', '--subscribers', '5'], '--shards 6 exceeds --subscribers 5'],
    [['--instances', '3', '--disruptions', 'crash,reboot'], '--disruptions: expected some of'],
    [['--instances', '1'], '--instances 1 cannot lose an instance'],
    [['--instances', '3', '--active', '100', '--rate', '100'], 'at most 5000 events/s'],
    [['--instances', '3', '--redis', 'http://x'], '--redis must be a redis://'],
    [['--instances', '3', '--session-timeout', '1000'], '--session-timeout must be an integer from 6000'],
  ])('refuses %j before touching anything', (args, error) => {
    const parsed = parseBenchInstancesArgs(args, {});
    expect(parsed.kind).toBe('bad');
    expect(parsed.kind === 'bad' && parsed.error).toContain(error);
  });

  it('lets one instance join and scale when nothing is to be lost', () => {
    expect(parseBenchInstancesArgs(['--instances', '1', '--disruptions', 'join,scale'], {})).toMatchObject({
      kind: 'run',
      settings: { instancesPerShard: 1, disruptions: ['join', 'scale'] },
    });
  });
});
