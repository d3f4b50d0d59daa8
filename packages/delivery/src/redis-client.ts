import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

const require = createRequire(import.meta.url);

/**
 * ioredis's client class, loaded when the first client is made: only limits and breakers shared
 * through Redis (`hookstream push --redis`) use it, and an import at start-up cost every pusher
 * ~5 MB of RSS. ioredis is CommonJS, so a require loads it synchronously and the constructors
 * that make clients stay synchronous.
 */
export function redisClass(): typeof Redis {
  return (require('ioredis') as typeof import('ioredis')).Redis;
}
