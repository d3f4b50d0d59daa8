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
  readonly data: EventDataByType[T];
}

/** Where notices go (an EventProducer of the notices channel in production). */
export interface NoticePublisher {
  publish<T extends NoticeType>(
    type: T,
    data: EventDataByType[T],
    options: { readonly id: string; readonly key: string },
  ): Promise<unknown>;
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
    id: `subscriber.disabled:${name}:${Date.parse(was.updatedAt)}`,
    key: name,
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
    id: `subscriber.enabled:${name}:${Date.parse(state.at)}`,
    key: name,
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
  return publisher.publish(notice.type, notice.data, { id: notice.id, key: notice.key });
}
