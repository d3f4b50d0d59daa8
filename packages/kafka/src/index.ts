// Re-exported so callers type their code against the client without importing kafkajs.
export type { Admin, Consumer, Kafka, Producer } from 'kafkajs';
export type { KafkaClientOptions } from './client.ts';
export { createKafka } from './client.ts';
export type { ConsumedRecord } from './consumed-record.ts';
export { decodeHeaders, toConsumedRecord } from './consumed-record.ts';
export type { CommittedOffset } from './group-offsets.ts';
export { commitGroupOffsets, deleteGroups, fetchCommittedOffsets, listGroupIds } from './group-offsets.ts';
export type { KafkaReadErrorCode } from './kafka-read-error.ts';
export { KafkaReadError } from './kafka-read-error.ts';
export type { KafkaSendErrorCode } from './kafka-send-error.ts';
export { KafkaSendError } from './kafka-send-error.ts';
export type { TopicLag } from './lag.ts';
export { fetchGroupLag, fetchTopicDepth } from './lag.ts';
export { OffsetTracker } from './offset-tracker.ts';
export { partitionForKey } from './partition-for-key.ts';
export type { ClusterInfo } from './probe.ts';
export { probeCluster } from './probe.ts';
export type { OutgoingRecord, RecordPosition, RecordSenderOptions } from './record-sender.ts';
export { RecordSender } from './record-sender.ts';
export type { StartedFrom, StartFrom } from './start-position.ts';
export type {
  HandlerOutcome,
  LogFn,
  RecordHandler,
  SubscriberConsumerOptions,
} from './subscriber-consumer.ts';
export { SubscriberConsumer } from './subscriber-consumer.ts';
export type { PartitionRange } from './topic-info.ts';
export { brokerCount, partitionRanges, topicExists } from './topic-info.ts';
export type { ReadTopicOptions } from './topic-reader.ts';
export { READER_GROUP_PREFIX, readTopic } from './topic-reader.ts';
export type { TopicSpec } from './topics.ts';
export { ensureTopics } from './topics.ts';
