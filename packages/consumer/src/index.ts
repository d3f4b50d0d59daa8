// The package's whole surface: a subscriber's consumption of its group, over @hookstream/kafka.

export type { LaneMode } from './lanes/events-lane.ts';
export { OffsetTracker } from './ledger/offset-tracker.ts';
export type { SettledOffsets } from './ledger/settled-offsets.ts';
export { MemoryBudget } from './memory-budget.ts';
export type { HandlerOutcome, RecordHandler } from './record-handler.ts';
export type {
  ConsumerProcess,
  SubscriberConsumerOptions,
  Subscription,
  UnsettledRange,
} from './subscriber-consumer.ts';
export { SubscriberConsumer } from './subscriber-consumer.ts';
export type { EventsTapOptions } from './tap/events-tap.ts';
export { EventsTap } from './tap/events-tap.ts';
