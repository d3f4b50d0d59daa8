// The package's whole surface. No kafkajs type is exported: the client can be replaced here
// without touching callers.
// First, before any module that loads kafkajs (see the file).
import './kafkajs-preload.ts';

export type { KafkaClientOptions } from './client.ts';
export type { ConsumedRecord } from './consumed-record.ts';
export type { LaneMode } from './events-lane.ts';
export type { EventsTapOptions } from './events-tap.ts';
export { EventsTap } from './events-tap.ts';
export type { CommittedOffset } from './group-offsets.ts';
export type { GroupState } from './group-states.ts';
export type { AccessContext, KafkaAccessErrorCode } from './kafka-access-error.ts';
export { explainKafkaError, KafkaAccessError } from './kafka-access-error.ts';
export type { TopicPartition } from './kafka-admin.ts';
export { KafkaAdmin } from './kafka-admin.ts';
export { createKafka, KafkaConnection } from './kafka-connection.ts';
export type { KafkaReadErrorCode } from './kafka-read-error.ts';
export { KafkaReadError } from './kafka-read-error.ts';
export type { KafkaSendErrorCode } from './kafka-send-error.ts';
export { KafkaSendError } from './kafka-send-error.ts';
export type { TopicLag } from './lag.ts';
export type { LogFn } from './log.ts';
export { OffsetTracker } from './offset-tracker.ts';
export { partitionForKey } from './partition-for-key.ts';
export type { ClusterInfo } from './probe.ts';
export { probeCluster } from './probe.ts';
export { quietKafkajsTimeoutWarning } from './quiet-warnings.ts';
export type { RawConsumer, RawConsumerOptions } from './raw-consumer.ts';
export { createRawConsumer } from './raw-consumer.ts';
export type { RawAcks, RawMessage, RawProducer, RawSendResult, RawTopicMessages } from './raw-producer.ts';
export { createRawProducer } from './raw-producer.ts';
export type { HandlerOutcome, RecordHandler } from './record-handler.ts';
export type { OutgoingRecord, RecordPosition, RecordSenderOptions } from './record-sender.ts';
export { RecordSender } from './record-sender.ts';
export type { SettledOffsets } from './settled-offsets.ts';
export type { StartedFrom, StartFrom } from './start-position.ts';
export type { SubscriberConsumerOptions } from './subscriber-consumer.ts';
export { SubscriberConsumer } from './subscriber-consumer.ts';
export type { TopicFollowerOptions } from './topic-follower.ts';
export { TopicFollower } from './topic-follower.ts';
export type { PartitionRange } from './topic-info.ts';
export type { ReadTopicOptions } from './topic-reader.ts';
export { READER_GROUP_PREFIX, readTopic } from './topic-reader.ts';
export type { LeaderWait, TopicSpec } from './topics.ts';
