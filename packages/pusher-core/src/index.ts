export type { AttemptLogWriterOptions } from './attempt-log-writer.ts';
export { ATTEMPT_LOG_BATCH_BYTES, ATTEMPT_LOG_ENTRY_BYTES, AttemptLogWriter } from './attempt-log-writer.ts';
export type { LaneMode } from './consume/lanes/events-lane.ts';
export { OffsetTracker } from './consume/ledger/offset-tracker.ts';
export type { SettledOffsets } from './consume/ledger/settled-offsets.ts';
export { MemoryBudget } from './consume/memory-budget.ts';
export type { HandlerOutcome, RecordHandler } from './consume/record-handler.ts';
export type {
  ConsumerProcess,
  SubscriberConsumerOptions,
  Subscription,
  UnsettledRange,
} from './consume/subscriber-consumer.ts';
export { SubscriberConsumer } from './consume/subscriber-consumer.ts';
export type { EventsTapOptions } from './consume/tap/events-tap.ts';
export { EventsTap } from './consume/tap/events-tap.ts';
export type { DeliveryMetrics } from './delivery-metrics.ts';
export { statusClass } from './delivery-metrics.ts';
export type { DeliveryCounts, DeliveryObserver } from './delivery-observer.ts';
export { emptyCounts } from './delivery-observer.ts';
export type {
  AttemptSummary,
  DeliveryOutcome,
  DeliveryOutcomeKind,
  RecordContext,
} from './delivery-outcome.ts';
export type {
  DeliveryHealth,
  DisableVerdict,
  EndpointHealthOptions,
  HealthVerdict,
} from './endpoint-health.ts';
export { EndpointHealth } from './endpoint-health.ts';
export type { PusherErrorCode } from './errors.ts';
export { PusherError } from './errors.ts';
export type { DecodeResult, EventDecoder } from './event-decoder.ts';
export { AvroEventDecoder, schemaNamesOf } from './event-decoder.ts';
export type { FleetEntry, FleetMember, FleetOptions } from './fleet.ts';
export { Fleet } from './fleet.ts';
export type { FleetSelection, MemberProblem } from './fleet-members.ts';
export { fleetMembers, nameMatcher, RecordDerivations } from './fleet-members.ts';
export type { InstanceStatusOptions } from './instance-status-publisher.ts';
export {
  defaultInstanceName,
  INSTANCE_STATUS_SPEC,
  InstanceStatusPublisher,
} from './instance-status-publisher.ts';
export type {
  Grant,
  LeaseEnd,
  LeaseEntry,
  LeaseRefusal,
  LeaseSelection,
  SelectionResult,
} from './lease-book.ts';
export { LeaseBook } from './lease-book.ts';
export type { KnownRegistration, StartDecision } from './ledger-registrations.ts';
export {
  decideStart,
  LedgerRegistrations,
  latestRegistration,
  parseRegistration,
} from './ledger-registrations.ts';
export type { OutcomeRouter, RetryDecision } from './outcome-router.ts';
export { KafkaOutcomeRouter } from './outcome-router.ts';
export type { PullDeliveryDeps } from './pull-delivery.ts';
export { PullDelivery } from './pull-delivery.ts';
export type { LeaseAsk, PullHostOptions } from './pull-host.ts';
export { PullHost } from './pull-host.ts';
export type {
  MemoryGaugeSource,
  PusherGaugeSources,
  SubscriberMetrics,
  SubscriberTopicSet,
} from './pusher-metrics.ts';
export { PusherMetrics } from './pusher-metrics.ts';
export type { PusherResourcesSettings } from './pusher-resources.ts';
export { DEFAULT_MEMORY_BUDGET_MB, PusherResources } from './pusher-resources.ts';
export type { RecordingObserverDeps } from './recording-observer.ts';
export { RecordingObserver } from './recording-observer.ts';
export type { HeadroomPoint, HeadroomSource, RetentionWatchOptions } from './retention-watch.ts';
export { DEFAULT_RETENTION_CHECK_MS, RetentionWatch } from './retention-watch.ts';
export type { SchemaLookup, SchemaSource } from './schema-source.ts';
export { RegistrySchemaSource } from './schema-source.ts';
export type {
  AttemptLimiter,
  DeliveryClient,
  SubscriberDeliveryDeps,
} from './subscriber-delivery.ts';
export { SubscriberDelivery } from './subscriber-delivery.ts';
export type { SubscriberRunnerOptions } from './subscriber-runner.ts';
export { SubscriberRunner } from './subscriber-runner.ts';
export { DLQ_RETENTION_MS, subscriberTopics } from './subscriber-topics.ts';
export { SubscriberTopology } from './subscriber-topology.ts';
