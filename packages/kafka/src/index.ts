// The package's whole surface. No kafkajs type is exported: the client can be replaced here
// without touching callers.
// First, before any module that uses kafkajs: the patches replace modules kafkajs captures as
// it loads them (see kafkajs-patches/README.md).
import './kafkajs-patches/install.ts';

export type { CommittedOffset, GroupOffsetCommit } from './admin/group-offsets.ts';
export type { GroupState } from './admin/group-states.ts';
export type { TopicPartition } from './admin/kafka-admin.ts';
export { KafkaAdmin } from './admin/kafka-admin.ts';
export type { TopicLag } from './admin/lag.ts';
export type { RecordSample } from './admin/record-samples.ts';
export type { PartitionRange } from './admin/topic-info.ts';
export type { LeaderWait, TopicSpec } from './admin/topics.ts';
export type { AccessContext } from './connection/access-refusal.ts';
export { explainKafkaError } from './connection/access-refusal.ts';
export type { KafkaClientOptions } from './connection/client.ts';
export { createKafka, KafkaConnection } from './connection/kafka-connection.ts';
export type { ClusterInfo } from './connection/probe.ts';
export { probeCluster } from './connection/probe.ts';
export type { ConsumedRecord, RewindMark } from './consume/consumed-record.ts';
export { keptRecord } from './consume/consumed-record.ts';
export type { AdminGroupLedgerOptions } from './consume/group/admin-group-ledger.ts';
export { AdminGroupLedger } from './consume/group/admin-group-ledger.ts';
export type { EvictionOutcome } from './consume/group/evict-member.ts';
export type { GroupLedger, PartitionGap, PartitionReading } from './consume/group/group-ledger.ts';
export { gapAt, joinPosition } from './consume/group/group-ledger.ts';
export type {
  Assignment,
  GroupMember,
  MemberBatch,
  MemberCrash,
  MemberEviction,
  MemberListener,
  PartitionOffset,
  RejoinCause,
} from './consume/group/group-member.ts';
export { commitGroupStart, type GroupStart } from './consume/group/group-start.ts';
export type { KafkajsGroupMemberOptions } from './consume/group/kafkajs-group-member.ts';
export { KafkajsGroupMember } from './consume/group/kafkajs-group-member.ts';
export type { LedgerRewind } from './consume/group/ledger-rewind.ts';
export { carriedRewind, markedRecord, rewindMarkOf } from './consume/group/ledger-rewind.ts';
export type { StartedFrom, StartFrom } from './consume/group/start-position.ts';
export type { RawConsumer, RawConsumerOptions } from './consume/raw-consumer.ts';
export { createRawConsumer } from './consume/raw-consumer.ts';
export type { TapSink, TopicTapOptions } from './consume/topic-tap.ts';
export { TopicTap } from './consume/topic-tap.ts';
export type {
  KafkaAccessErrorCode,
  KafkajsPatchErrorCode,
  KafkaReadErrorCode,
  KafkaSendErrorCode,
} from './errors.ts';
export {
  KafkaAccessError,
  KafkaFencedError,
  KafkajsPatchError,
  KafkaReadError,
  KafkaSendError,
} from './errors.ts';
export { keyPartitioner, partitionForKey } from './produce/partition-for-key.ts';
export type {
  RawAcks,
  RawMessage,
  RawProducer,
  RawSendResult,
  RawTopicMessages,
} from './produce/raw-producer.ts';
export { createRawProducer } from './produce/raw-producer.ts';
export type { OutgoingRecord, RecordPosition } from './produce/record-positions.ts';
export type { RecordSenderOptions } from './produce/record-sender.ts';
export { RecordSender } from './produce/record-sender.ts';
export type { Transaction, TransactionalWriterOptions } from './produce/transactional-writer.ts';
export { TransactionalWriter } from './produce/transactional-writer.ts';
export type { FollowedBatch, TopicFollowerOptions } from './read/topic-follower.ts';
export { TopicFollower } from './read/topic-follower.ts';
export type { ReadTopicOptions } from './read/topic-reader.ts';
export { READER_GROUP_PREFIX, readRecordAt, readTopic } from './read/topic-reader.ts';
export type { StreamedPartition, StreamedTopic, StreamTopicOptions } from './read/topic-stream.ts';
export { streamTopic } from './read/topic-stream.ts';
