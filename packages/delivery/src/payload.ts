import { hash, randomUUID } from 'node:crypto';

/** What the pusher adds at the top level of the event's data (docs/contract.md: the request). */
export interface DeliveryMeta {
  readonly eventId: string;
  readonly subscriptionId: string;
  readonly deliveryId: string;
  readonly attempt: number;
  readonly type: string;
  readonly occurredAt: string;
  /** The event's tenant (header `ce_tenant`); the body names one only when the event has one. */
  readonly tenant?: string | undefined;
}

/**
 * Stable for the pair (event, subscriber), across retries, restarts and replays, and different
 * between subscribers, so neither side can correlate another subscriber's deliveries.
 */
export function deliveryIdOf(subscriber: string, eventId: string): string {
  // One-shot: a Hash object per delivery cost more than the digest.
  return hash('sha256', `${subscriber.length}:${subscriber}${eventId}`, 'base64url').slice(0, 26);
}

/**
 * The JSON body: the event's data with the contract fields added. The ingress refuses data that
 * uses those names; should one slip through, the contract fields win. `tenant` comes last and
 * only for an event with a tenant, so other bodies are byte for byte what they were.
 */
export function buildBody(data: Readonly<Record<string, unknown>>, meta: DeliveryMeta): string {
  const body: Record<string, unknown> = {
    ...data,
    event_id: meta.eventId,
    subscription_id: meta.subscriptionId,
    delivery_id: meta.deliveryId,
    attempt: meta.attempt,
    type: meta.type,
    occurred_at: meta.occurredAt,
  };
  if (meta.tenant !== undefined) body.tenant = meta.tenant;
  return JSON.stringify(body);
}

/** The bytes `batchBody` adds to its members' bodies: the envelope, and a comma between two. */
export const BATCH_ENVELOPE_BYTES = '{"events":[]}'.length;

/**
 * A batch request's body: each member's body as it would be sent alone (buildBody), in order.
 * The members are JSON already, so they are joined, not parsed and serialized again.
 */
export function batchBody(members: readonly string[]): string {
  return `{"events":[${members.join(',')}]}`;
}

/** A batch request's `webhook-id`: its own, since a batch is not one event (docs/contract.md). */
export function newBatchId(): string {
  return `batch_${randomUUID()}`;
}
