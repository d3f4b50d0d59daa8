import type { EventDataByType, NoticeType, SubscriberRecord } from '@hookstream/contracts';

/**
 * One operational event ready to publish onto the events topic's notices topic. Its id is
 * derived from the record the change started from, so every replica that makes the same change
 * publishes the same id, and a subscriber's pusher delivers it once.
 */
export interface Notice<T extends NoticeType> {
  readonly type: T;
  /** The subscriber and the state it left: the same for every replica making this change. */
  readonly id: string;
  /** The subscriber's name: its notices stay in order on one partition. */
  readonly key: string;
  /** The subscriber's tenant, sent as the notice's `ce_tenant`; absent for a subscriber of none. */
  readonly tenant?: string;
  readonly data: EventDataByType[T];
}

/** Where notices go (an EventProducer of the notices channel in production). */
export interface NoticePublisher {
  publish<T extends NoticeType>(type: T, data: EventDataByType[T], options: NoticeOptions): Promise<unknown>;
}

/**
 * How a notice is published. `tenant`: the tenant of the subscriber it is about, as its
 * `ce_tenant`, so the tenant filter every subscriber applies lets only that tenant's subscribers
 * (and those of no tenant) take it. Data has no tenant field: `tenant` is reserved in data.
 */
export interface NoticeOptions {
  readonly id: string;
  readonly key: string;
  readonly tenant?: string;
}

/** The options for a notice about a subscriber of this definition: its tenant when it has one. */
export function noticeOptions(
  id: string,
  definition: { readonly name: string; readonly tenant?: string | undefined },
): NoticeOptions {
  const { name, tenant } = definition;
  return tenant === undefined ? { id, key: name } : { id, key: name, tenant };
}

/**
 * `subscriber.disabled` for a record just disabled from `was` (the active record it replaced:
 * replicas racing to disable read the same one, so their notices share an id). Pure.
 */
export function disabledNotice(
  was: SubscriberRecord,
  record: SubscriberRecord,
  context: {
    readonly eventsTopic: string;
    readonly status: number | null;
    readonly failingSinceMs: number | null;
  },
): Notice<'subscriber.disabled'> {
  const { state } = record;
  if (state.kind !== 'disabled') throw new Error(`the record of ${record.definition.name} is not disabled`);
  const name = record.definition.name;
  return {
    type: 'subscriber.disabled',
    ...noticeOptions(`subscriber.disabled:${name}:${Date.parse(was.updatedAt)}`, record.definition),
    data: {
      subscriber: name,
      cause: state.cause ?? 'failing',
      reason: state.reason,
      status: context.status,
      disabled_at: state.at,
      failing_since: context.failingSinceMs === null ? null : new Date(context.failingSinceMs).toISOString(),
      events_topic: context.eventsTopic,
    },
  };
}

/** `subscriber.enabled` for a disabled record resumed by `by`; its id names the disable it ends. Pure. */
export function enabledNotice(
  was: SubscriberRecord,
  context: { readonly eventsTopic: string; readonly by: string; readonly now: Date },
): Notice<'subscriber.enabled'> {
  const { state } = was;
  if (state.kind !== 'disabled') throw new Error(`the record of ${was.definition.name} was not disabled`);
  const name = was.definition.name;
  const at = context.now.toISOString();
  return {
    type: 'subscriber.enabled',
    ...noticeOptions(`subscriber.enabled:${name}:${Date.parse(state.at)}`, was.definition),
    data: {
      subscriber: name,
      enabled_at: at,
      by: context.by.slice(0, 200) || 'unknown',
      was_disabled_at: state.at,
      was_disabled_reason: state.reason,
      events_topic: context.eventsTopic,
    },
  };
}

/** Publishes one notice through the publisher. */
export function publishNotice<T extends NoticeType>(
  publisher: NoticePublisher,
  notice: Notice<T>,
): Promise<unknown> {
  const { id, key, tenant } = notice;
  return publisher.publish(
    notice.type,
    notice.data,
    tenant === undefined ? { id, key } : { id, key, tenant },
  );
}
