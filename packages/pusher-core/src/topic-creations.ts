import type { TopicSpec } from '@hookstream/kafka';
import { MicroBatcher } from '@hookstream/producer';

/** Creates the missing topics of `specs` and names those it created (KafkaAdmin.ensureTopics). */
export type EnsureTopics = (specs: readonly TopicSpec[]) => Promise<string[]>;

type Made = { readonly created: boolean } | { readonly error: unknown };

/**
 * The process's topic creation: requests that arrive while one is under way share the next, so a
 * fleet starting a thousand subscribers (six topics each) lists the topics and asks the broker a
 * few times, not a thousand. A batch the broker refuses is tried again topic by topic, so one
 * subscriber's bad topic fails only its own start.
 */
export class TopicCreations {
  readonly #batcher: MicroBatcher<TopicSpec, Made>;

  constructor(ensure: EnsureTopics, maxBatchTopics = 1200) {
    this.#batcher = new MicroBatcher<TopicSpec, Made>({
      flush: (specs) => createAll(ensure, specs),
      sizeOf: () => 1,
      maxBatchItems: maxBatchTopics,
      maxInFlight: 1,
      // Every subscriber of a large catalog may ask at once; each waits for its own answer.
      maxQueuedItems: 1_000_000,
    });
  }

  /** Creates what is missing of `specs`; the names this call's request created. */
  async ensure(specs: readonly TopicSpec[]): Promise<string[]> {
    const made = await this.#batcher.submit([...specs]);
    const failed = made.find((m) => 'error' in m);
    if (failed !== undefined && 'error' in failed) throw failed.error;
    return specs
      .filter((_, i) => {
        const m = made[i];
        return m !== undefined && 'created' in m && m.created;
      })
      .map((s) => s.topic);
  }
}

async function createAll(ensure: EnsureTopics, specs: readonly TopicSpec[]): Promise<Made[]> {
  // Two requests for one topic (two subscribers' notices topic): created once, named once.
  const unique = [...new Map(specs.map((s) => [s.topic, s])).values()];
  try {
    const created = new Set(await ensure(unique));
    return specs.map((s) => {
      const first = created.delete(s.topic);
      return { created: first };
    });
  } catch (batchError) {
    if (unique.length === 1) return specs.map(() => ({ error: batchError }));
    const alone = new Map<string, Made>();
    for (const spec of unique) {
      try {
        alone.set(spec.topic, { created: (await ensure([spec])).length > 0 });
      } catch (error) {
        alone.set(spec.topic, { error });
      }
    }
    return specs.map((s) => alone.get(s.topic) ?? { error: batchError });
  }
}
