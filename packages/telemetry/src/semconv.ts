/**
 * Attribute names from the OpenTelemetry messaging semantic conventions, plus hookstream's own.
 * Spelled out here so every service names them identically.
 */
export const ATTR = {
  messagingSystem: 'messaging.system',
  messagingOperationType: 'messaging.operation.type',
  messagingOperationName: 'messaging.operation.name',
  messagingDestination: 'messaging.destination.name',
  messagingPartition: 'messaging.destination.partition.id',
  messagingConsumerGroup: 'messaging.consumer.group.name',
  messagingMessageId: 'messaging.message.id',
  messagingKafkaKey: 'messaging.kafka.message.key',
  messagingKafkaOffset: 'messaging.kafka.offset',
  subscriber: 'hookstream.subscriber',
  attempt: 'hookstream.attempt',
  outcome: 'hookstream.outcome',
  eventType: 'hookstream.event.type',
  /** Replays: the DLQ record replayed (`<topic>:<partition>:<offset>`) and the run's id. */
  replayOf: 'hookstream.replay.of',
  replayId: 'hookstream.replay.id',
} as const;

export const MESSAGING_SYSTEM_KAFKA = 'kafka';
