import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** kafkajs's own module at `path` (resolved), loaded afresh whatever a patch put in the module cache. */
export function kafkajsOriginal<T>(path: string): T {
  const cached = require.cache[path];
  delete require.cache[path];
  try {
    return require(path) as T;
  } finally {
    if (cached) require.cache[path] = cached;
  }
}
