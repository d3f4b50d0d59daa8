import { z } from 'zod';
import { EventId, EventTypeName, TenantId } from './envelope.ts';

/** What a producer sends to publish one event (`POST /v1/events`, or the library's options). */
export const PublishRequest = z.strictObject({
  type: EventTypeName,
  data: z.record(z.string(), z.unknown()),
  /** Kept when given (so a retried submission keeps its identity); generated once otherwise. */
  id: EventId.optional(),
  /** Partition key; the event id when absent. Events of one key keep their order. */
  key: z.string().min(1).max(1024).optional(),
  /** When it happened (RFC 3339); the intake time when absent. */
  occurred_at: z.iso.datetime({ offset: true }).optional(),
  /** Whose event it is (header `ce_tenant`); a tenant-bound token's tenant when absent. */
  tenant: TenantId.optional(),
});
export type PublishRequest = z.infer<typeof PublishRequest>;

/** Most events one batch request may carry. */
export const MAX_BATCH_EVENTS = 500;

/** `POST /v1/events/batch`: items are checked one by one so each gets its own error. */
export const PublishBatchRequest = z.strictObject({
  events: z.array(z.unknown()).min(1).max(MAX_BATCH_EVENTS),
});
export type PublishBatchRequest = z.infer<typeof PublishBatchRequest>;
