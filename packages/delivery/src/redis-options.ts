import type { RedisOptions } from 'ioredis';

/**
 * ioredis options from a redis:// or rediss:// URL, whole: user, password, database and TLS.
 * Bottleneck takes client options rather than a URL, and passing host and port alone dropped
 * the password on the way (a Redis with AUTH then refused every limiter call).
 */
export function redisOptionsFromUrl(raw: string): RedisOptions {
  const url = new URL(raw);
  const db = url.pathname.replace(/^\//, '');
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 6379),
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
    ...(db === '' ? {} : { db: Number(db) }),
    ...(url.protocol === 'rediss:' ? { tls: { servername: url.hostname } } : {}),
  };
}
