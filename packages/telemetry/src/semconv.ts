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
  httpMethod: 'http.request.method',
  httpStatus: 'http.response.status_code',
  httpResendCount: 'http.request.resend_count',
  urlFull: 'url.full',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  errorType: 'error.type',
  subscriber: 'hookstream.subscriber',
  attempt: 'hookstream.attempt',
  /** What became of the record: delivered, retry-scheduled, dead-lettered, filtered, abandoned. */
  outcome: 'hookstream.outcome',
  /** The attempt's outcome reason from the delivery contract (server-error, timeout, …). */
  outcomeReason: 'hookstream.outcome.reason',
  eventType: 'hookstream.event.type',
  /** The event's tenant (its ce_tenant); only on spans of an event that has one. */
  tenant: 'hookstream.tenant',
  /** Replays: the DLQ record replayed (`<topic>:<partition>:<offset>`) and the run's id. */
  replayOf: 'hookstream.replay.of',
  replayId: 'hookstream.replay.id',
  retryTier: 'hookstream.retry.tier',
  deadLetterReason: 'hookstream.dead_letter.reason',
  limiterWaitMs: 'hookstream.limiter.wait_ms',
  /** The destination's circuit breaker when the attempt went out: closed, or half-open for a probe. */
  breakerState: 'hookstream.breaker.state',
  /** True on the attempt that probes an open breaker. */
  breakerProbe: 'hookstream.breaker.probe',
  /** A batch request: its `webhook-id` and how many events it carried (on each member's span). */
  batchId: 'hookstream.batch.id',
  batchSize: 'hookstream.batch.size',
} as const;

export const MESSAGING_SYSTEM_KAFKA = 'kafka';
