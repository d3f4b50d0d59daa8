import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Puts `replacement` in Node's module cache as the module at `path`, for kafkajs modules that
 * capture it when they load (`capturedBy`, resolved paths). True when kafkajs uses it (now or
 * already); false when a capturing module had loaded first (kafkajs then keeps its own, only
 * slower).
 */
export function preloadModule(path: string, capturedBy: readonly string[], replacement: unknown): boolean {
  const tooLate = capturedBy.some((p) => require.cache[p] !== undefined);
  if (require.cache[path] === undefined) require(path);
  const cached = require.cache[path];
  if (cached === undefined) return false;
  if (cached.exports === replacement) return true;
  if (tooLate) return false;
  cached.exports = replacement;
  return true;
}
