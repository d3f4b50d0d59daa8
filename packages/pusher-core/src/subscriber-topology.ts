import { type SubscriberDefinition, subscriberNames } from '@hookstream/contracts';
import type { TopicSpec } from '@hookstream/kafka';
import { type HttpTarget, httpTarget } from '@hookstream/telemetry';
import { subscriberTopics } from './subscriber-topics.ts';

/**
 * Everything derived from a subscriber's definition and the events topic it reads, computed once
 * when the definition loads: its group (the ledger), the topics it reads and writes, its parsed
 * destination and type filter. The rest of the core takes this object, never the parts.
 */
export class SubscriberTopology {
  readonly definition: SubscriberDefinition;
  readonly name: string;
  /** The consumer group whose committed offsets are the subscriber's acknowledgement ledger. */
  readonly groupId: string;
  readonly eventsTopic: string;
  /** Retry tier topics in order: tier n is `tierTopics[n - 1]`. */
  readonly tierTopics: readonly string[];
  readonly dlqTopic: string;
  readonly url: URL;
  /** The destination's origin: the unit of rate limits and connection pools. */
  readonly origin: string;
  /** The destination as span attributes (credentials redacted). */
  readonly target: HttpTarget;
  readonly #tiers: ReadonlyMap<string, number>;
  readonly #allTypes: boolean;
  readonly #types: ReadonlySet<string>;

  constructor(definition: SubscriberDefinition, eventsTopic: string) {
    this.definition = definition;
    this.name = definition.name;
    const names = subscriberNames(definition);
    this.groupId = names.group;
    this.eventsTopic = eventsTopic;
    this.tierTopics = names.tiers.map((t) => t.topic);
    this.dlqTopic = names.dlq;
    this.url = new URL(definition.url);
    this.origin = this.url.origin;
    this.target = httpTarget(this.url);
    this.#tiers = new Map(this.tierTopics.map((topic, i) => [topic, i + 1]));
    this.#allTypes = definition.eventTypes.includes('*');
    this.#types = new Set(definition.eventTypes);
  }

  /** The retry tier a topic is (1-based), or undefined for the events topic and others. */
  tierOf(topic: string): number | undefined {
    return this.#tiers.get(topic);
  }

  isEventsTopic(topic: string): boolean {
    return topic === this.eventsTopic;
  }

  /** Whether the subscriber wants events of this type. */
  accepts(type: string): boolean {
    return this.#allTypes || this.#types.has(type);
  }

  /** The subscriber's own topics (tiers and DLQ) with explicit retention, for ensureTopics. */
  ownTopics(partitions: number, replicationFactor: number): TopicSpec[] {
    return subscriberTopics(this.definition, partitions).map((t) => ({ ...t, replicationFactor }));
  }
}
