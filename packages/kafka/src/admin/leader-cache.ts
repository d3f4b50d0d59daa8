import { type BatchCluster, partitionLeaders } from './cluster-metadata.ts';

type Leaders = readonly { partition: number; leader: number }[];

/**
 * Partition leaders of topics asked about often (every second, for thousands of retry tiers),
 * kept for a while: a Metadata request for all of them at each look would cost more than the
 * look. Topics not known or older than `maxAgeMs` are asked together; `forget` after an error
 * (a leader moved) makes the next call ask again.
 */
export class LeaderCache {
  readonly #maxAgeMs: number;
  readonly #known = new Map<string, { readonly leaders: Leaders; readonly atMs: number }>();

  constructor(maxAgeMs = 60_000) {
    this.#maxAgeMs = maxAgeMs;
  }

  async of(cluster: BatchCluster, topics: readonly string[]): Promise<Map<string, Leaders>> {
    const now = Date.now();
    const ask = topics.filter((t) => {
      const known = this.#known.get(t);
      return known === undefined || now - known.atMs > this.#maxAgeMs;
    });
    if (ask.length > 0)
      for (const [topic, leaders] of await partitionLeaders(cluster, ask))
        this.#known.set(topic, { leaders, atMs: now });
    return new Map(topics.map((t) => [t, this.#known.get(t)?.leaders ?? []]));
  }

  forget(): void {
    this.#known.clear();
  }
}
