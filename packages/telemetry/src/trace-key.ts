import { hash } from 'node:crypto';

/**
 * A record's partition key as spans carry it. Keys are often tenant or customer ids, and traces
 * leave the process for a shared Jaeger, so by default only a digest goes: equal keys still
 * show as equal, the key itself is not readable. A subscriber may opt in to the clear key.
 */
export function traceKey(key: string, inClear = false): string {
  if (inClear) return key;
  // Keys repeat (a shipment, a tenant), and a hash per span was a visible share of tracing.
  let digest = digests.get(key);
  if (digest === undefined) {
    // The one-shot hash: no Hash object built per key.
    digest = `sha256:${hash('sha256', key, 'hex').slice(0, 16)}`;
    if (digests.size >= MAX_DIGESTS) digests.clear();
    digests.set(key, digest);
  }
  return digest;
}

/** Bounds the digest cache; clearing it all when full is simpler than an LRU and rarely hit. */
const MAX_DIGESTS = 4096;
const digests = new Map<string, string>();
