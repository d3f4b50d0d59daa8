import { describe, expect, it } from 'vitest';
import { redisOptionsFromUrl } from '../src/redis-options.ts';

describe('redisOptionsFromUrl', () => {
  it.each([
    ['redis://127.0.0.1:6379', { host: '127.0.0.1', port: 6379 }],
    ['redis://redis.internal', { host: 'redis.internal', port: 6379 }],
    [
      'redis://:s3cret@redis.internal:6380/2',
      { host: 'redis.internal', port: 6380, password: 's3cret', db: 2 },
    ],
    [
      'redis://limiter:p%40ss@redis.internal',
      { host: 'redis.internal', port: 6379, username: 'limiter', password: 'p@ss' },
    ],
    [
      'rediss://:pw@redis.internal:6380',
      { host: 'redis.internal', port: 6380, password: 'pw', tls: { servername: 'redis.internal' } },
    ],
  ])('keeps everything %s says', (url, options) => {
    expect(redisOptionsFromUrl(url)).toEqual(options);
  });
});
