import {
  type EventFilter,
  EventSelection,
  evaluateFilter,
  type FilterInput,
  type FilterVerdict,
  filterNeedsData,
  isNoticeType,
  isOwnDeliveryNotice,
  isPullDefinition,
  noticesTopicName,
  retryTierOf,
  type SubscriberDefinition,
  subscriberNames,
  takesNotices,
} from '@hookstream/contracts';
import type { TopicSpec } from '@hookstream/kafka';
import { type HttpTarget, httpTarget } from '@hookstream/telemetry';
import type { Subscription } from './consume/subscriber-consumer.ts';
import { subscriberTopics } from './subscriber-topics.ts';
import { subscriptionOf } from './subscription.ts';

/**
 * Everything derived from a subscriber's definition and the events topic it reads, computed once
 * when the definition loads: its group (the ledger), the topics it reads and writes, its parsed
 * destination, its type and tenant filter. The rest of the core takes this object, never the parts.
 */
export class SubscriberTopology {
  readonly definition: SubscriberDefinition;
  /**
   * The records it takes by type and tenant: the rule its lanes, the events tap and admission
   * apply alike (EventSelection).
   */
  readonly selection: EventSelection;
  /** What its consumer reads, and how (subscriptionOf): built once, here. */
  readonly subscription: Subscription;
  readonly name: string;
  /** The consumer group whose committed offsets are the subscriber's acknowledgement ledger. */
  readonly groupId: string;
  readonly eventsTopic: string;
  /**
   * The events topic's notices topic, which the group reads too when the definition takes any
   * notice type ('*' does); null otherwise. A tenant's subscriber keeps only its tenant's notices
   * (takesTenant, by their `ce_tenant`).
   */
  readonly noticesTopic: string | null;
  /** Retry tier topics in order: tier n is `tierTopics[n - 1]`. */
  readonly tierTopics: readonly string[];
  readonly dlqTopic: string;
  /** Whether its events are leased over the API rather than pushed (`mode: "pull"`). */
  readonly pull: boolean;
  /** A push subscriber's endpoint; null for a pull subscriber. */
  readonly #endpoint: { readonly url: URL; readonly origin: string; readonly target: HttpTarget } | null;
  /** The definition's filter; null: it takes every event of its types and tenant. */
  readonly filter: EventFilter | null;
  /** Whether the filter reads the data; if not, it runs before the event is decoded. */
  readonly filterNeedsData: boolean;
  readonly #tiers: ReadonlyMap<string, number>;

  constructor(definition: SubscriberDefinition, eventsTopic: string) {
    this.definition = definition;
    this.name = definition.name;
    const names = subscriberNames(definition);
    this.groupId = names.group;
    this.eventsTopic = eventsTopic;
    this.noticesTopic = takesNotices(definition) ? noticesTopicName(eventsTopic) : null;
    this.tierTopics = names.tiers.map((t) => t.topic);
    this.dlqTopic = names.dlq;
    this.pull = isPullDefinition(definition);
    if (definition.url === undefined) this.#endpoint = null;
    else {
      const url = new URL(definition.url);
      this.#endpoint = { url, origin: url.origin, target: httpTarget(url) };
    }
    this.#tiers = new Map(this.tierTopics.map((topic, i) => [topic, i + 1]));
    this.selection = EventSelection.of(definition);
    this.filter = definition.filter ?? null;
    this.filterNeedsData = this.filter !== null && filterNeedsData(this.filter);
    this.subscription = subscriptionOf(this);
  }

  /** The push endpoint. Only push code asks; a pull subscriber's topology throws. */
  get url(): URL {
    return this.#push().url;
  }

  /** The destination's origin: the unit of rate limits and connection pools. */
  get origin(): string {
    return this.#push().origin;
  }

  /** The destination as span attributes (credentials redacted). */
  get target(): HttpTarget {
    return this.#push().target;
  }

  #push() {
    if (this.#endpoint === null) throw new Error(`${this.name}: a pull subscriber has no endpoint`);
    return this.#endpoint;
  }

  /** The filter's verdict on an event (held when there is no filter). */
  admits(input: FilterInput): FilterVerdict {
    return this.filter === null ? { pass: true } : evaluateFilter(this.filter, input);
  }

  /**
   * The retry tier a topic is (1-based), or undefined for the events topic and others. A tier
   * the definition no longer lists is one too: its records are read until it is drained.
   */
  tierOf(topic: string): number | undefined {
    return this.#tiers.get(topic) ?? retryTierOf(this.name, topic) ?? undefined;
  }

  /** A topic whose records are first deliveries (the events topic, the notices topic), not retries. */
  isSourceTopic(topic: string): boolean {
    return topic === this.eventsTopic || topic === this.noticesTopic;
  }

  isNoticesTopic(topic: string): boolean {
    return topic === this.noticesTopic;
  }

  /**
   * Whether the subscriber takes a record of this type that first came from `origin` (a retry:
   * the topic it was first read from): the types hookstream emits only from the notices topic,
   * since anyone who may write the events topic could write one there, and nothing else from it;
   * and no notice of its own delivery failures (`key`: the record's key, a notice's subscriber).
   */
  takes(type: string, origin: string, key: string | null = null): boolean {
    if (!this.selection.takesType(type)) return false;
    if (!isNoticeType(type)) return !this.isNoticesTopic(origin);
    return this.isNoticesTopic(origin) && !isOwnDeliveryNotice(type, key, this.name);
  }

  /**
   * Whether the subscriber takes a record whose `ce_tenant` is `tenant` (undefined: none). A
   * retry or a replay carries its original's headers, so it is judged as its original was.
   */
  takesTenant(tenant: string | undefined): boolean {
    return this.selection.takesTenant(tenant);
  }

  /** The subscriber's own topics (tiers and DLQ) with explicit retention, for ensureTopics. */
  ownTopics(partitions: number, replicationFactor: number): TopicSpec[] {
    return subscriberTopics(this.definition, partitions).map((t) => ({ ...t, replicationFactor }));
  }
}
