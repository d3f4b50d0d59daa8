export type { Caller } from './caller.ts';
export { auditActorOf } from './caller.ts';
export type { EventSchemaEntry, EventTypeEntry } from './catalogue.ts';
export { catalogueFor } from './catalogue.ts';
export type { DeadLetterItem, LedgerView } from './dead-letter-ops.ts';
export { replayWithAudit } from './dead-letter-ops.ts';
export { managementErrorOf } from './error-mapping.ts';
export type { ErrorDetail, ManagementErrorCode } from './errors.ts';
export { MANAGEMENT_ERROR_STATUS, ManagementError } from './errors.ts';
export { etagOf, expectedRevision } from './etag.ts';
export type { ExampleClock } from './example-data.ts';
export { exampleData } from './example-data.ts';
export { refuseWhatTheFleetCannotRead } from './fleet-check.ts';
export { kafkaPorts } from './kafka-ports.ts';
export type {
  ExampleEncoder,
  ExampleEvent,
  ManagementPorts,
  PullAnswer,
  PullPort,
  PullSelection,
  StoredRecord,
} from './management-ports.ts';
export { ManagementService } from './management-service.ts';
export { EXAMPLE_SOURCE } from './message-actions.ts';
export type { MessageDetail, MessageIndex, MessageIndexQuery, MessageSummary } from './message-index.ts';
export { DEFAULT_PAYLOAD_MODE } from './message-payload.ts';
export type { MessageListAsk } from './message-reads.ts';
export type { Page } from './pagination.ts';
export { decodeCursor, encodeCursor, pageOf } from './pagination.ts';
export type { LeaseGranted, LeaseRequest } from './pull-ops.ts';
export type { ReplayJob, ReplayRunner } from './replay-jobs.ts';
export { ReplayJobs } from './replay-jobs.ts';
export type { RewindAsk } from './rewind-op.ts';
export type { SubscriberItem, SubscriberResource } from './subscriber-reads.ts';
export type { PutResult, RotatedSecret, StateResult } from './subscriber-writes.ts';
export {
  DEFAULT_TENANT_MAX_SUBSCRIBERS,
  DEFAULT_TENANT_QUOTAS,
  parseTenantQuotaList,
  TenantQuotas,
} from './tenant-quotas.ts';
export type { TenantPolicy } from './tenant-rules.ts';
export { DEFAULT_TENANT_POLICY, refuseOperatorOnlyFields, specFor, visibleTo } from './tenant-rules.ts';
