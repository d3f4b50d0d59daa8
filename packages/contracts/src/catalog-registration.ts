import { z } from 'zod';
import { SubscriberName } from './topics.ts';

/**
 * The durable record of which subscribers exist (docs/architecture.md: the ledger rule). A group's committed
 * offsets are deleted once it has been empty for `offsets.retention.minutes`; a subscriber that
 * is registered here but has no offsets any more lost its ledger, and must not silently restart
 * from its `start` position. Compacted, keyed by `registrationKey`.
 */
export const CATALOG_TOPIC = 'hookstream.subscribers';

export const SubscriberRegistration = z.object({
  name: SubscriberName,
  /** The events topic whose offsets are the ledger. */
  eventsTopic: z.string().min(1),
  /** The first time a pusher of this subscriber started. */
  registeredAt: z.iso.datetime({ offset: true }),
  lastStartedAt: z.iso.datetime({ offset: true }),
});
export type SubscriberRegistration = z.infer<typeof SubscriberRegistration>;

/** One registration per subscriber and events topic. */
export function registrationKey(name: string, eventsTopic: string): string {
  return `${eventsTopic}/${name}`;
}

/**
 * Registration keys are `<eventsTopic>/<name>`; subscriber records are keyed by the bare name,
 * which cannot contain '/', so the two kinds never collide in the one compacted topic.
 */
export function isRegistrationKey(key: string): boolean {
  return key.includes('/');
}
