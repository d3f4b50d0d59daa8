import { createHash } from 'node:crypto';

/**
 * A record's partition key as spans carry it. Keys are often tenant or customer ids, and traces
 * leave the process for a shared Jaeger, so by default only a digest goes: equal keys still
 * show as equal, the key itself is not readable. A subscriber may opt in to the clear key.
 */
export function traceKey(key: string, inClear = false): string {
  if (inClear) return key;
  return `sha256:${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}
