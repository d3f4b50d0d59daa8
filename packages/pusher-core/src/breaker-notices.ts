import type { Classification, FleetBreakerChange } from '@hookstream/delivery';
import { type Notice, noticeOptions } from '@hookstream/subscribers';

/** Who the notices are about: the subscriber, its tenant and its endpoint's host. */
export interface BreakerNoticeSubject {
  readonly name: string;
  readonly tenant?: string | undefined;
  /** The endpoint's host and port only: its path and query may carry credentials. */
  readonly destination: string;
  readonly eventsTopic: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * `subscriber.failing` for an opening of the breaker (`lastFailure`: the attempt that was last to
 * fail before it). Its id names the opening, so a copy sent again is the same notice. Pure.
 */
export function failingNotice(
  subject: BreakerNoticeSubject,
  opened: Extract<FleetBreakerChange, { kind: 'opened' }>,
  lastFailure: Classification | null,
): Notice<'subscriber.failing'> {
  return {
    type: 'subscriber.failing',
    ...noticeOptions(`subscriber.failing:${subject.name}:${opened.openedAtMs}`, subject),
    data: {
      subscriber: subject.name,
      destination: subject.destination,
      cause: opened.cause,
      opened_at: iso(opened.openedAtMs),
      failing_since: opened.failingSinceMs === null ? null : iso(opened.failingSinceMs),
      last_status: lastFailure?.status ?? null,
      last_outcome: lastFailure?.reason ?? null,
      events_topic: subject.eventsTopic,
    },
  };
}

/** `subscriber.recovered` for a closing; its id names the opening it ends. Pure. */
export function recoveredNotice(
  subject: BreakerNoticeSubject,
  closed: Extract<FleetBreakerChange, { kind: 'closed' }>,
): Notice<'subscriber.recovered'> {
  const since = closed.failingSinceMs ?? closed.openedAtMs;
  return {
    type: 'subscriber.recovered',
    ...noticeOptions(`subscriber.recovered:${subject.name}:${closed.openedAtMs}`, subject),
    data: {
      subscriber: subject.name,
      destination: subject.destination,
      recovered_at: iso(closed.closedAtMs),
      opened_at: iso(closed.openedAtMs),
      failing_since: closed.failingSinceMs === null ? null : iso(closed.failingSinceMs),
      failing_ms: Math.max(0, closed.closedAtMs - since),
      events_topic: subject.eventsTopic,
    },
  };
}
