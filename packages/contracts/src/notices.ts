import type { EventTypeName } from './envelope.ts';

/**
 * The event types hookstream itself emits (schemas in the `hookstream.ops` namespace). They are
 * reserved: the ingress refuses them for every token, producers refuse them on the events topic,
 * and pushers deliver them only from the notices topic, which only hookstream's principals may
 * write (docs/security.md). A type added here must also be added to schemas/, and back.
 */
export const NOTICE_TYPES = [
  'subscriber.disabled',
  'subscriber.enabled',
  'subscriber.events_lost',
  'subscriber.retention_at_risk',
  'subscriber.dead_lettered',
  'subscriber.failing',
  'subscriber.recovered',
] as const;
export type NoticeType = (typeof NOTICE_TYPES)[number];

/**
 * The operational webhooks (dead letters, the breaker): a subscriber takes them only by naming
 * them, never by `*`, so an upgrade sends no new kind of event to an existing `*` subscriber, and
 * a tenant chooses which endpoint is its operational one.
 */
export const NAMED_ONLY_NOTICE_TYPES: ReadonlySet<string> = new Set([
  'subscriber.dead_lettered',
  'subscriber.failing',
  'subscriber.recovered',
]);

/**
 * Notices of a subscriber's own delivery failures: never delivered to that subscriber itself
 * (the notice's key is its name), since it would travel the very path that fails, and a
 * subscriber taking `*` would otherwise be told of each of its dead letters by another request
 * to the same endpoint. The tenant's other notice subscribers receive them.
 */
const ABOUT_OWN_DELIVERY = NAMED_ONLY_NOTICE_TYPES;

/** Whether a notice of `type` keyed `key` is about `subscriber`'s own deliveries. */
export function isOwnDeliveryNotice(type: string, key: string | null, subscriber: string): boolean {
  return key === subscriber && ABOUT_OWN_DELIVERY.has(type);
}

/** The registry namespace of every notice type's schema (a test holds the two lists together). */
export const NOTICE_SCHEMA_NAMESPACE = 'hookstream.ops';

const RESERVED: ReadonlySet<string> = new Set(NOTICE_TYPES);

export function isNoticeType(type: string): type is NoticeType {
  return RESERVED.has(type);
}

/** Every notices topic starts with this (one per events topic). */
export const NOTICES_TOPIC_PREFIX = 'hookstream.notices.';

/**
 * Where notices about the subscribers of `eventsTopic` go. One per events topic, as subscribers
 * are: a fleet reads one events topic, and so the notices of its own subscribers only.
 */
export function noticesTopicName(eventsTopic: string): string {
  return `${NOTICES_TOPIC_PREFIX}${eventsTopic}`;
}

/**
 * Whether a definition's `eventTypes` take any notice ('*' takes them all). A tenant's subscriber
 * does too: a notice about a tenant's subscriber carries that tenant as its `ce_tenant`, and the
 * tenant filter every subscriber applies to every record (acceptsTenant) keeps only its own
 * tenant's; notices about subscribers of no tenant carry none, so a tenant's subscriber never
 * takes them.
 */
export function takesNotices(definition: { readonly eventTypes: readonly (EventTypeName | '*')[] }): boolean {
  return definition.eventTypes.some((t) => t === '*' || isNoticeType(t));
}
